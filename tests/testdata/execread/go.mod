module example.com/execread

go 1.26
