package web

import (
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// errNoImageFile is an upload without a file.
var errNoImageFile = errors.New("no image file")

// imageErrors are an upload's refusals: the answer's status and message.
var imageErrors = []struct {
	err    error
	status int
	key    string
	args   []any
}{
	{models.ErrImageTooLarge, http.StatusRequestEntityTooLarge, "images.err_large", []any{models.MaxImageBytes >> 20}},
	{models.ErrImageType, http.StatusUnprocessableEntity, "images.err_type", nil},
	{models.ErrImagePixels, http.StatusUnprocessableEntity, "images.err_pixels", []any{models.MaxImagePixels / 1_000_000, models.MaxImageSide}},
	{models.ErrImageBroken, http.StatusUnprocessableEntity, "images.err_broken", nil},
	{models.ErrAltMissing, http.StatusUnprocessableEntity, "images.err_alt", nil},
	{models.ErrAltTooLong, http.StatusUnprocessableEntity, "images.err_alt_long", nil},
	{models.ErrAltInvalid, http.StatusBadRequest, handlers.BadTextMessage, nil},
	{errNoImageFile, http.StatusUnprocessableEntity, "images.err_file", nil},
}

// editorTextarea is the id of the lesson editor's Markdown textarea, where
// the images component's Insert writes.
const editorTextarea = "f-body"

// uploadedKey is the session's note of the image a form post (without
// JavaScript) just uploaded: "lessonID imageID", shown once by the
// component, with its Markdown to copy.
const uploadedKey = "images.uploaded"

// lessonImagesPage is a lesson's images component on a page of its own.
func (a *App) lessonImagesPage(c echo.Context) error {
	l, err := a.Content.ImagesLesson(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	v, err := a.lessonImagesView(c, l.ID, "")
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.LessonImagesPage(l.Title, v), nil)
}

// lessonImagesView is the images component of lesson id for a page whose
// Markdown textarea has the id textarea ("" for none): the lesson's
// images and, once, the one a form post just uploaded.
func (a *App) lessonImagesView(c echo.Context, lessonID, textarea string) (views.LessonImagesView, error) {
	v := views.LessonImagesView{LessonID: lessonID, Textarea: textarea}
	var err error
	if v.Images, err = a.Content.LessonImages(c.Request().Context(), lessonID); err != nil {
		return v, err
	}
	sess := session(c)
	note, _ := sess.Values[uploadedKey].(string)
	lesson, id, ok := strings.Cut(note, " ")
	if !ok || lesson != lessonID {
		return v, nil
	}
	delete(sess.Values, uploadedKey)
	for i := range v.Images {
		if v.Images[i].ID == id {
			v.Uploaded = &v.Images[i]
		}
	}
	return v, sess.Save(c.Request(), c.Response())
}

// uploadImage takes an image and its alt text for a lesson. With HTMX it
// answers the component with the image and its Markdown; a form post is
// sent back with 303 to where the component shows it once. A refusal
// shows the component again with why, the alt as typed.
func (a *App) uploadImage(c echo.Context) error {
	ctx := c.Request().Context()
	l, err := a.Content.ImagesLesson(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	typed := c.FormValue("alt")
	img, err := a.storeImage(c, l.ID, typed)
	for _, e := range imageErrors {
		if errors.Is(err, e.err) {
			return a.imagesRefused(c, l, typed, e.status, t(c, e.key, e.args...))
		}
	}
	if err != nil {
		return err
	}
	if isFragment(c) {
		v, err := a.lessonImagesView(c, l.ID, textareaOf(c))
		if err != nil {
			return err
		}
		v.Uploaded = &img
		return a.fragment(c, http.StatusOK, views.LessonImages(v))
	}
	sess := session(c)
	sess.Values[uploadedKey] = l.ID + " " + img.ID
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, urls.LessonEditor(l.ID)+"#lesson-images")
}

// storeImage checks the alt text and the file (by its content) and stores it.
func (a *App) storeImage(c echo.Context, lessonID, typed string) (models.LessonImage, error) {
	alt, err := models.CleanAlt(typed)
	if err != nil {
		return models.LessonImage{}, err
	}
	data, err := imageFile(c)
	if err != nil {
		return models.LessonImage{}, err
	}
	info, err := models.CheckImage(c.Request().Context(), data)
	if err != nil {
		return models.LessonImage{}, err
	}
	return a.Content.AddImage(c.Request().Context(), lessonID,
		models.ImageUpload{Data: data, Info: info, Alt: alt, UploadedBy: handlers.UserFrom(c).ID})
}

// imageFile reads the form's file, at most MaxImageBytes of it. The site's
// body limit (handlers.maxBody) has already cut off a larger request
// before anything read it; a body cut off midway is too large as well.
func imageFile(c echo.Context) ([]byte, error) {
	fh, err := c.FormFile("file")
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge:
		return nil, models.ErrImageTooLarge
	case err != nil || fh.Size == 0:
		return nil, errNoImageFile
	case fh.Size > models.MaxImageBytes:
		return nil, models.ErrImageTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, models.MaxImageBytes+1))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// imagesRefused shows the component again with the refusal and the alt
// text as typed (a page of its own without HTMX).
func (a *App) imagesRefused(c echo.Context, l *models.Lesson, typed string, status int, msg string) error {
	v, err := a.lessonImagesView(c, l.ID, textareaOf(c))
	if err != nil {
		return err
	}
	v.Alt, v.Error = typed, msg
	if !isFragment(c) {
		return a.render(c, status, views.LessonImagesPage(l.Title, v), nil)
	}
	return a.fragment(c, status, views.LessonImages(v))
}

// textareaID is the form of the id of a lesson's textarea.
var textareaID = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,40}$`)

// textareaOf is the textarea the component's form names (its hidden
// field), so that its answer keeps the Insert buttons; "" when none.
func textareaOf(c echo.Context) string {
	if id := c.FormValue("textarea"); textareaID.MatchString(id) {
		return id
	}
	return ""
}

// mediaName is an image's URL name: its SHA-256 and an accepted extension.
var mediaName = regexp.MustCompile(`^([0-9a-f]{64})\.(png|jpg|webp|gif)$`)

// serveMedia sends an uploaded image to anyone who has its URL: the name
// is the SHA-256 of its bytes, 256 bits no one guesses, learnt from a
// lesson's page (see the README's Images). The type is the stored one,
// never the extension; the bytes never change, so browsers and shared
// caches keep them for a year and revalidate with the id as ETag.
func (a *App) serveMedia(c echo.Context) error {
	m := mediaName.FindStringSubmatch(c.Param("file"))
	if m == nil {
		return echo.ErrNotFound
	}
	id, etag := m[1], `"`+m[1]+`"`
	fresh := etagMatches(c.Request().Header.Get("If-None-Match"), etag)
	img, err := a.Content.Image(c.Request().Context(), id, !fresh)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if fresh {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, img.ContentType, img.Data)
}

// etagMatches reports whether an If-None-Match header names etag (weakly
// or not) or is "*".
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}
