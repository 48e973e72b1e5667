package convert

import (
	"context"
	"path"
	"path/filepath"

	// Decoders for image.DecodeConfig (here and in PageBuilder.AddImage).
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
)

// openImage converts a PNG, JPEG or GIF into one page holding one Image
// element. Only the header is decoded (image.DecodeConfig), so the pixel
// limit is checked before any pixel is.
func openImage(ctx context.Context, src *Source, env *Env) (Pages, error) {
	data, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	base := path.Base(filepath.ToSlash(src.Name))
	book := NewBook(env)
	b := book.StartPage(base)
	mimeType := ""
	switch kindOfImage(data) {
	case KindPNG:
		mimeType = "image/png"
	case KindJPEG:
		mimeType = "image/jpeg"
	case KindGIF:
		mimeType = "image/gif"
	}
	b.AddImage(data, mimeType, "", Meta{"image_path": base})
	if err := book.Err(); err != nil {
		return nil, err
	}
	return book.Pages(Info{}), nil
}

func kindOfImage(data []byte) Kind {
	k, _ := SniffBytes("", data[:min(len(data), sniffHead)])
	return k
}
