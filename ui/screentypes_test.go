package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoot_AssertsNoConcreteScreen holds the rule the root's optional
// interfaces exist for: no code of the package asks whether a screen is a
// particular concrete screen (a type assertion or a type switch case on
// *xScreen); it asks for the behaviour it needs. A concrete assertion ties
// the root to one screen's fields and breaks silently when another screen
// gains the same behaviour.
func TestRoot_AssertsNoConcreteScreen(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	concrete := func(e ast.Expr) (string, bool) {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return "", false
		}
		id, ok := star.X.(*ast.Ident)
		if !ok || !strings.HasSuffix(id.Name, "Screen") {
			return "", false
		}
		return id.Name, true
	}
	var found []string
	read := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		read++
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if s, ok := concrete(n.Type); ok && n.Type != nil {
					found = append(found, fset.Position(n.Pos()).String()+": .(*"+s+")")
				}
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if s, ok := concrete(e); ok {
							found = append(found, fset.Position(e.Pos()).String()+": case *"+s)
						}
					}
				}
			}
			return true
		})
	}
	if read < 20 {
		t.Fatalf("read %d files: not the package's sources", read)
	}
	for _, f := range found {
		t.Errorf("%s: ask for the behaviour (an optional interface), not the screen", f)
	}
}
