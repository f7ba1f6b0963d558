package experiment

// ChildCommand exports childCommand to the external tests.
var ChildCommand = childCommand
