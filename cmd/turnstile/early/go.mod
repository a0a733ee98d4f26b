module early.invalid/entry

go 1.26.0
