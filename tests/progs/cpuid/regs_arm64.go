package main

func readMIDR() uint64
func readMPIDR() uint64
func readREVIDR() uint64
func readISAR0() uint64
func readPFR0() uint64
