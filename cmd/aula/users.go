package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"gorm.io/gorm"

	"aula/content/exporter"
	"aula/content/importer"
	"aula/models"
)

// userCmd runs `aula user create|set-plan|list`.
func userCmd(ctx context.Context, db *gorm.DB, args []string) error {
	users := models.NewUsers(db)
	if len(args) == 0 {
		return errors.New("usage: aula user create|set-plan|set-password|list")
	}
	switch args[0] {
	case "create":
		fs := flag.NewFlagSet("user create", flag.ContinueOnError)
		var n models.NewUser
		fs.StringVar(&n.Email, "email", "", "email address (required)")
		fs.StringVar(&n.Name, "name", "", "display name (required)")
		fs.StringVar(&n.Password, "password", "", "password, at least 10 characters, not a common one (required)")
		fs.StringVar(&n.Plan, "plan", models.PlanFree, fmt.Sprintf("plan, one of %v", models.Plans))
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		u, err := users.Create(ctx, n)
		if err != nil {
			return fmt.Errorf("user create: %w", err)
		}
		fmt.Printf("created %s (%s, %s)\n", u.Email, u.Plan, u.ID)
		return nil
	case "set-plan":
		if len(args) != 3 {
			return errors.New("usage: aula user set-plan EMAIL PLAN")
		}
		u, err := users.SetPlan(ctx, args[1], args[2])
		if errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("user set-plan: no user with email %s", args[1])
		}
		if err != nil {
			return fmt.Errorf("user set-plan: %w", err)
		}
		fmt.Printf("%s is now on %s\n", u.Email, u.Plan)
		return nil
	case "set-password":
		if len(args) != 2 {
			return errors.New("usage: aula user set-password EMAIL (the password is read from standard input)")
		}
		return setPassword(ctx, users, args[1])
	case "list":
		list, err := users.List(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "EMAIL\tNAME\tPLAN\tCREATED")
		for _, u := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", u.Email, u.Name, u.Plan, u.CreatedAt.Format("2006-01-02"))
		}
		return w.Flush()
	}
	return fmt.Errorf("unknown user command %q (create, set-plan, set-password, list)", args[0])
}

// setPassword reads one line from standard input, never from an argument
// (arguments show in `ps` and shell history), and sets it as the password.
func setPassword(ctx context.Context, users *models.Users, email string) error {
	u, err := users.GetByEmail(ctx, email)
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("user set-password: no user with email %s", email)
	}
	if err != nil {
		return fmt.Errorf("user set-password: %w", err)
	}
	fmt.Fprintf(os.Stderr, "New password for %s (one line on standard input): ", u.Email)
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("user set-password: read standard input: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	if err := users.SetPassword(ctx, u.ID, password); err != nil {
		return fmt.Errorf("user set-password: %w", err)
	}
	fmt.Printf("\npassword of %s set; every session of the account is signed out\n", u.Email)
	return nil
}

// contentCmd runs `aula content import DIR` and `aula content export DIR|FILE.zip [--path SLUG]`.
func contentCmd(ctx context.Context, db *gorm.DB, args []string) error {
	if len(args) >= 2 && args[0] == "export" {
		return contentExport(ctx, db, args[1:])
	}
	if len(args) != 2 || args[0] != "import" {
		return errors.New("usage: aula content import DIR | aula content export DIR|FILE.zip [--path SLUG]")
	}
	who := models.Actor{Email: "aula content import"}
	rep, err := importer.ImportAs(ctx, models.NewContent(db), os.DirFS(args[1]), who, args[1])
	if err != nil {
		return err
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(os.Stderr, "%s/%s\n", args[1], e.Error())
	}
	fmt.Printf("imported %d lessons, %d help articles and %d images; %d unchanged; %d files with errors\n",
		rep.Lessons, rep.HelpArticles, rep.Images, rep.Unchanged, len(rep.Errors))
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d files were not imported", len(rep.Errors))
	}
	return nil
}

// contentExport writes the catalog (or one path) in the folder format, as
// a zip when the target ends in .zip, else into that folder.
func contentExport(ctx context.Context, db *gorm.DB, args []string) error {
	fl := flag.NewFlagSet("content export", flag.ContinueOnError)
	path := fl.String("path", "", "export only the path with this slug")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	target, store := args[0], models.NewContent(db)
	if *path != "" {
		if ok, err := store.PathExists(ctx, *path); err != nil || !ok {
			return fmt.Errorf("content export: no path %q (%v)", *path, err)
		}
	}
	var sink interface {
		exporter.Sink
		Close() error
	}
	if strings.HasSuffix(target, ".zip") {
		f, err := os.Create(target)
		if err != nil {
			return fmt.Errorf("content export: %w", err)
		}
		defer f.Close()
		sink = exporter.NewZip(f)
	} else {
		sink = &exporter.Dir{Root: target}
	}
	n, err := exporter.Export(ctx, store, sink, *path)
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("content export: %w", err)
	}
	fmt.Printf("exported %d lessons, %d help articles and %d images to %s\n", n.Lessons, n.HelpArticles, n.Images, target)
	return nil
}
