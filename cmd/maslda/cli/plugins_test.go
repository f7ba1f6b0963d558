package cli_test

// The test binary links the plug-ins cmd/maslda links (plugins/std), so
// that what the tests see (components, presets, error lists) is what the
// command shows.
import _ "github.com/maslda/maslda/plugins/std"
