// Package webtest is a plain HTTP client for tests, the way a browser
// without JavaScript behaves: a cookie jar, forms posted with their CSRF
// token, and redirects followed.
package webtest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Client is a browser without JavaScript.
type Client struct {
	T    testing.TB
	Base string
	HTTP *http.Client
	// Lang is sent as Accept-Language when set.
	Lang string
}

// New returns a client with an empty cookie jar for the server at base.
func New(t testing.TB, base string) *Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &Client{T: t, Base: base, HTTP: &http.Client{Jar: jar}}
}

// Page is a fetched response with its parsed document.
type Page struct {
	Status int
	URL    *url.URL
	Header http.Header
	Body   string
	Doc    *goquery.Document
}

// Get fetches path and follows redirects.
func (c *Client) Get(path string) *Page {
	c.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.Base+path, nil)
	return c.Do(req)
}

// Do sends req and parses the response.
func (c *Client) Do(req *http.Request) *Page {
	c.T.Helper()
	if c.Lang != "" && req.Header.Get("Accept-Language") == "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	return &Page{Status: resp.StatusCode, URL: resp.Request.URL, Header: resp.Header, Body: string(b), Doc: doc}
}

// Post sends a form (urlencoded) to path and follows the 303.
func (c *Client) Post(path string, form url.Values) *Page {
	c.T.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// Submit fills the form matched by selector on page with values (on top of
// its hidden fields, the CSRF token among them) and submits it.
func (c *Client) Submit(p *Page, selector string, values map[string]string) *Page {
	c.T.Helper()
	form := p.Doc.Find(selector).First()
	if form.Length() == 0 {
		c.T.Fatalf("no form %q on %s:\n%s", selector, p.URL, p.Body)
	}
	v := url.Values{}
	form.Find("input[type=hidden]").Each(func(_ int, s *goquery.Selection) {
		v.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	for k, val := range values {
		v.Set(k, val)
	}
	action, _ := form.Attr("action")
	if form.AttrOr("method", "get") != "post" {
		c.T.Fatalf("form %q has method %q", selector, form.AttrOr("method", ""))
	}
	return c.Post(action, v)
}

// CSRF returns the token of the first form on page.
func (p *Page) CSRF() string {
	return p.Doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")
}

// Text returns the trimmed text of the elements matched by selector.
func (p *Page) Text(selector string) string {
	return strings.TrimSpace(p.Doc.Find(selector).Text())
}

// Cookie returns the value of the named cookie the jar holds for the server.
func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.Base)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}
