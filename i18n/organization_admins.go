package i18n

// A SUPER_ADMIN names an organization's admin by email invitation, sees an
// organization left without an admin, and keeps plans in step with membership.
var _ = add(map[string][2]string{
	"org.admin_language":      {"Language of the invitation letter", "Idioma de la carta de invitación"},
	"org.admin_invited_flash": {"No account has %s: a letter inviting it to administer this organization went there.", "Ninguna cuenta tiene %s: se le envió una carta que la invita a administrar esta organización."},
	"org.admin_invitations":   {"Pending admin invitations", "Invitaciones pendientes para administrar"},
	"org.admins":              {"Admins", "Administradores"},
	"org.no_admin":            {"No admin", "Sin administrador"},
	"org.no_admin_alert":      {"This organization has no admin (its only admin deleted their account): its members go on learning, but nobody can invite, assign or follow them. Name an admin below.", "Esta organización no tiene administrador (quien la administraba eliminó su cuenta): sus miembros siguen aprendiendo, pero nadie puede invitar, asignar ni seguir su progreso. Nombra abajo a quien la administre."},

	"org.err.no_user_no_mail": {"No account has this email, and this site sends no email to invite it: the person signs up first, then you name them.", "Ninguna cuenta tiene este correo y este sitio no envía correo para invitarla: la persona se registra antes y luego la nombras."},
	"org.err.admin_address":   {"That is not an email address.", "Eso no es una dirección de correo."},
	"org.err.admin_language":  {"Choose English or Spanish for the letter.", "Elige inglés o español para la carta."},
	"org.err.admin_pending":   {"This address already has a pending invitation to administer the organization: resend it from the list below.", "Esta dirección ya tiene una invitación pendiente para administrar la organización: reenvíala desde la lista de abajo."},

	"invite.err.other_account":  {"This invitation to administer the organization is for another email address than your account's.", "Esta invitación para administrar la organización es para otra dirección de correo que la de tu cuenta."},
	"invite.hint.other_account": {"Sign in, or sign up, with the address the letter was sent to.", "Inicia sesión, o regístrate, con la dirección a la que llegó la carta."},

	"join.admin_title":  {"Administer %s", "Administrar %s"},
	"join.admin_lead":   {"You are invited to administer %s on aula: you invite its people, make groups, assign lessons and follow their progress. While you do, your plan is Corporate admin.", "Te invitan a administrar %s en aula: invitas a su gente, creas grupos, asignas lecciones y sigues su progreso. Mientras lo hagas, tu plan es Administrador corporativo."},
	"join.admin_submit": {"Administer %s", "Administrar %s"},
	"join.admin_flash":  {"You now administer %s: invite its people below.", "Ahora administras %s: invita abajo a su gente."},

	"admin.err.plan_follows_org":    {"%s belongs to the organization “%s”: their plan follows their role there (Corporate admin or Corporate user). For another plan they leave it or are removed from it first.", "%s pertenece a la organización «%s»: su plan sigue a su rol en ella (Administrador corporativo o Usuario corporativo). Para otro plan, antes sale de ella o la quitan."},
	"admin.err.corporate_needs_org": {"%s belongs to no organization: corporate plans come with one. Name them an organization's admin on its page, or have them invited.", "%s no pertenece a ninguna organización: los planes corporativos van con una. Nómbrala administradora en la página de una organización, o que la inviten."},
	"admin.err.last_org_admin":      {"%s is the only admin of “%s”: name another admin of it first.", "%s es quien administra «%s» en solitario: nombra antes a otra persona."},
	"admin.org_page":                {"Open the organization’s page", "Abrir la página de la organización"},
	"admin.orgs_page":               {"Open the organizations", "Abrir las organizaciones"},

	"account.delete_last_org_admin": {"You are the only admin of %s. It stays, with its members, but without an admin until aula’s staff name one. To hand it over, make a member co-admin first (Organization).", "Eres quien administra %s en solitario. Seguirá, con sus miembros, pero sin administrador hasta que el equipo de aula nombre a alguien. Para dejarla en buenas manos, haz antes coadministrador a un miembro (Organización)."},

	"mail.admin_invite_subject": {"You are invited to administer %s on aula", "Te invitan a administrar %s en aula"},
	"mail.admin_invite_body":    {"aula’s staff named you the admin of %s on aula, a learning platform with an AI tutor: you invite its people, assign them lessons and follow their progress. Open the link to accept; if you have no account yet, create one on the way with this address.", "El equipo de aula te nombró administrador de %s en aula, una plataforma de aprendizaje con un tutor de IA: invitas a su gente, le asignas lecciones y sigues su progreso. Abre el enlace para aceptar; si aún no tienes cuenta, créala por el camino con esta dirección."},
	"mail.admin_invite_action":  {"Administer %s", "Administrar %s"},
})
