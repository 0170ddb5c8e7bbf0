package ingest

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Single-file compressions an import reads through, as Recoll does: Debian keeps most of
// /usr/share/doc gzipped (README.gz, changelog.Debian.gz, whole manuals), and an import that
// skipped them missed 1,716 of its 4,155 files. The file inside is imported as itself
// (README.md.gz as README.md); an archive of many files (a .tar.gz) is still not unpacked.
const (
	formatGzip  = "gzip"
	formatBzip2 = "bzip2"
)

// compressedFormat is the format DetectFormat gives a file of MIME type mime when it is a
// compression Parse reads through, "" otherwise.
func compressedFormat(mime string) string {
	switch mime {
	case "application/gzip":
		return formatGzip
	case "application/x-bzip2":
		return formatBzip2
	}
	return ""
}

// isCompressed reports a format Parse reads through to the file it holds.
func isCompressed(format string) bool { return format == formatGzip || format == formatBzip2 }

// uncompress reads the file a gzip or bzip2 file holds, and the name it has inside: path
// without the compression's extension. Its text may take up to limit bytes once unpacked (the
// size limit a plain file has), however small the file: a bomb's first limit bytes cost a
// few tens of milliseconds and limit bytes of memory, and then it is refused.
func uncompress(path, format string, data []byte, limit int64) (inner []byte, name string, err error) {
	var r io.Reader
	switch format {
	case formatGzip:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, "", unreadableCompressed(format, err)
		}
		defer zr.Close()
		r = zr
	case formatBzip2:
		r = bzip2.NewReader(bytes.NewReader(data))
	default:
		return nil, "", fmt.Errorf("is compressed as %s, which memdesk does not read: %w", format, ErrUnsupported)
	}
	inner, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, "", unreadableCompressed(format, err)
	}
	if int64(len(inner)) > limit {
		return nil, "", fmt.Errorf("unpacks to more than the %s limit; unpack it and import the file, or raise the limit: %w",
			byteSize(limit), ErrTooLarge)
	}
	name = path
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".gz", ".gzip", ".bz2", ".bzip2":
		name = strings.TrimSuffix(path, filepath.Ext(path))
	}
	return inner, name, nil
}

func unreadableCompressed(format string, cause error) error {
	return fmt.Errorf("is not a readable %s file (%v); unpack it and import what it holds: %w", format, cause, ErrUnsupported)
}
