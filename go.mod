module github.com/pqkem/pqkem

go 1.26.0
