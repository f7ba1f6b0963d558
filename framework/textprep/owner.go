package textprep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// preparedFiles are the entries a prepared directory may hold (train and
// test: the parts of a split, each a prepared directory itself).
var preparedFiles = map[string]bool{DocsFile: true, VocabFile: true, IDsFile: true, LabelsFile: true, ManifestFile: true}

// IsPrepared reports whether dir is the output of Prepare (a manifest.json
// of this tool and only the files Prepare writes), which maslda prepare
// may therefore replace; the error says why not.
func IsPrepared(dir string) error {
	return isPrepared(dir, true)
}

func isPrepared(dir string, top bool) error {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no %s: not the output of maslda prepare", filepath.Join(dir, ManifestFile))
		}
		return err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Tool != "maslda prepare" {
		return fmt.Errorf("%s is not maslda prepare's manifest", filepath.Join(dir, ManifestFile))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type().IsRegular() && preparedFiles[name]:
		case e.IsDir() && top && (name == "train" || name == "test"):
			if err := isPrepared(filepath.Join(dir, name), false); err != nil {
				return err
			}
		default:
			return fmt.Errorf("the output of maslda prepare, but it also holds %s, which prepare does not write", filepath.Join(dir, name))
		}
	}
	return nil
}
