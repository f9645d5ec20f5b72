package urls

import "testing"

// The builders spell the routes the web door serves; ids from the
// database pass through unchanged, and anything else is escaped so it
// stays one path segment or one query value.
func TestBuilders(t *testing.T) {
	cases := []struct{ got, want string }{
		{Lesson("go-basics", "go-variables-types"), "/learn/go-basics/go-variables-types"},
		{LessonSessions("go-basics", "go-functions-errors"), "/learn/go-basics/go-functions-errors/sessions"},
		{LessonPanel("networking", "vlan-basics", "c1"), "/learn/networking/vlan-basics?tutor=open&session=c1#tutor"},
		{LessonPanelMessage("networking", "vlan-basics", "c1", "m2"), "/learn/networking/vlan-basics?tutor=open&session=c1#m-m2"},
		{LessonHistory("networking", "vlan-basics"), "/learn/networking/vlan-basics?tutor=open&history=open#tutor"},
		{Lesson("a/b?c", "d#e"), "/learn/a%2Fb%3Fc/d%23e"},
		{Threads("cur", ""), "/chat/threads?after=cur"},
		{Threads("cur", "c1"), "/chat/threads?after=cur&active=c1"},
		{ThreadMessage("c1", "m2"), "/chat/c1#m-m2"},
		{MessageStream("m2", 42), "/messages/m2/stream?offset=42"},
		{Login("/learn/x?y=1"), "/login?next=%2Flearn%2Fx%3Fy%3D1"},
		{Login(""), "/login"},
		{DashboardHistory("cur"), "/dashboard/history?after=cur"},
		{AdminUsers("a b&c"), "/admin/users?q=a+b%26c"},
		{Settings("new-token"), "/settings#new-token"},
		{PasswordForgot(true), "/password/forgot?sent=1"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}
