module github.com/maslda/maslda

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/tools v0.38.0 // indirect
