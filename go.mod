module gometal

go 1.26
