package i18n

var _ = add(map[string][2]string{
	"mail.greeting":         {"Hello %s,", "Hola, %s:"},
	"mail.signature":        {"— aula, your learning platform with a tutor", "— aula, tu plataforma de aprendizaje con tutor"},
	"mail.stop":             {"You get this email because optional email is on in your settings. Stop it in one click:", "Recibes este correo porque tienes activado el correo opcional en tus ajustes. Desactívalo con un clic:"},
	"mail.welcome_subject":  {"Welcome to aula", "Te damos la bienvenida a aula"},
	"mail.welcome_body":     {"Your account is ready. Open a lesson and ask the tutor beside it whenever something is unclear: it answers from the lesson and shows where.", "Tu cuenta está lista. Abre una lección y pregunta al tutor que tienes al lado cuando algo no quede claro: responde a partir de la lección y te muestra dónde."},
	"mail.welcome_action":   {"Start learning", "Empezar a aprender"},
	"mail.reset_subject":    {"Reset your aula password", "Restablece tu contraseña de aula"},
	"mail.reset_body":       {"Someone asked to reset the password of your aula account. The link below works once, within 30 minutes, and signs out every device that is signed in.", "Alguien ha pedido restablecer la contraseña de tu cuenta de aula. El enlace de abajo funciona una sola vez, durante 30 minutos, y cierra la sesión en todos los dispositivos."},
	"mail.reset_action":     {"Choose a new password", "Elegir una contraseña nueva"},
	"mail.reset_ignore":     {"If it was not you, ignore this email: your password stays as it is.", "Si no has sido tú, ignora este correo: tu contraseña no cambia."},
	"mail.approved_subject": {"Your upgrade to %s was approved", "Se aprobó tu cambio al plan %s"},
	"mail.approved_body":    {"Good news: an administrator moved your account to the %s plan. It applies from now on.", "Buenas noticias: un administrador ha pasado tu cuenta al plan %s. Se aplica desde ahora."},
	"mail.declined_subject": {"Your upgrade request to %s", "Tu solicitud de cambio al plan %s"},
	"mail.declined_body":    {"An administrator declined your request to move to the %s plan. Your current plan stays as it is.", "Un administrador ha rechazado tu solicitud para pasar al plan %s. Tu plan actual sigue igual."},
	"mail.plans_action":     {"See your plan", "Ver tu plan"},
	"mail.test_subject":     {"aula mail test", "Prueba de correo de aula"},
	"mail.test_body":        {"This is a test message sent by `aula mail test`. If you read it, aula's mail settings work.", "Este es un mensaje de prueba enviado con `aula mail test`. Si lo lees, la configuración de correo de aula funciona."},
})
