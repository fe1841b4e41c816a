module example.com/execmod/nested

go 1.26
