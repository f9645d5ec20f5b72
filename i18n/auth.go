package i18n

var _ = add(map[string][2]string{
	"signup.title":         {"Create your account", "Crea tu cuenta"},
	"signup.lead":          {"Free plan: 3 tutor questions a month, every lesson open.", "Plan gratuito: 3 preguntas al tutor al mes y todas las lecciones."},
	"signup.name":          {"Name", "Nombre"},
	"signup.email":         {"Email", "Correo electrónico"},
	"signup.password":      {"Password", "Contraseña"},
	"signup.password_hint": {"At least 8 characters.", "Al menos 8 caracteres."},
	"signup.submit":        {"Create account", "Crear cuenta"},
	"signup.have_account":  {"Already have an account?", "¿Ya tienes cuenta?"},
	"login.title":          {"Sign in", "Inicia sesión"},
	"login.submit":         {"Sign in", "Entrar"},
	"login.no_account":     {"New to aula?", "¿Nuevo en aula?"},
	"err.email_taken":      {"An account with this email already exists. Sign in instead?", "Ya existe una cuenta con este correo. ¿Quieres iniciar sesión?"},
	"err.invalid_email":    {"Enter a valid email address, like ana@example.com.", "Escribe un correo válido, como ana@ejemplo.com."},
	"err.short_password":   {"The password needs at least 8 characters.", "La contraseña necesita al menos 8 caracteres."},
	"err.long_password":    {"The password can have at most 256 characters.", "La contraseña puede tener como máximo 256 caracteres."},
	"err.invalid_name":     {"Enter your name (up to 100 characters).", "Escribe tu nombre (hasta 100 caracteres)."},
	"err.bad_credentials":  {"Wrong email or password.", "Correo o contraseña incorrectos."},
	"err.throttled":        {"Too many failed attempts. Wait 15 minutes and try again.", "Demasiados intentos fallidos. Espera 15 minutos y vuelve a intentarlo."},
	"err.form":             {"Please correct the highlighted field.", "Corrige el campo señalado."},
})
