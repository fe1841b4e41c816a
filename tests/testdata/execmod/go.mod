module example.com/execmod

go 1.26
