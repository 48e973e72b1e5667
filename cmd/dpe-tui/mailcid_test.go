package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGet_MailPictureTheBodyShows: a picture an HTML mail body shows
// (<img src="cid:…">, the image part with that Content-ID, as Python's
// email package composes it) is the Image element where the body has it,
// with the picture's data and the body's alt text, and is not listed and
// shown again as an attachment; the Image had no data (its path was the
// cid: URL) and the picture came again after the body.
func TestGet_MailPictureTheBodyShows(t *testing.T) {
	file := filepath.Join(realFixtures, "inline-image.eml")
	code, out, errOut := runCLI(t, "get", "--format", "json", file)
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	var d struct {
		Pages []struct {
			Elements []struct {
				Category, Text string
				Meta           struct {
					Data string `json:"image_base64"`
					Mime string `json:"image_mime_type"`
					W    int    `json:"image_width"`
				} `json:"ele_metadata"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var cats []string
	images := 0
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			cats = append(cats, e.Category)
			if e.Category == "Image" {
				images++
				if e.Text != "Gauge at noon" || e.Meta.Data == "" || e.Meta.Mime != "image/png" || e.Meta.W != 64 {
					t.Errorf("image %q %s %d×?, data %d bytes", e.Text, e.Meta.Mime, e.Meta.W, len(e.Meta.Data))
				}
			}
		}
	}
	if images != 1 || cats[len(cats)-1] != "Image" || cats[len(cats)-2] != "NarrativeText" {
		t.Errorf("elements %v: want the body's text, then its one picture, and no attachment", cats)
	}
	code, md, _ := runCLI(t, "get", "--format", "md", file)
	if code != exitOK || strings.Contains(md, "gauge.png") || !strings.Contains(md, "The gauge read 4.2 bar at noon.\n\n![Gauge at noon](") {
		t.Errorf("get --format md: exit %d\n%s", code, md)
	}
}
