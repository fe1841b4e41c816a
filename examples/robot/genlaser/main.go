// Command genlaser writes examples/robot/testdata/laser.gob: 30 scans of
// 180 beams (one a degree, -90° to 89° from straight ahead) of a robot
// driving down a corridor towards a wall, gob-encoded.
// Run from the repository root: go run ./examples/robot/genlaser
package main

import (
	"encoding/gob"
	"log"
	"math"
	"os"

	"gometal.dev/gometal/examples/robot/laser"
)

func main() {
	f, err := os.Create("examples/robot/testdata/laser.gob")
	if err != nil {
		log.Fatal(err)
	}
	enc := gob.NewEncoder(f)
	for seq := range 30 {
		wall := 5.0 - 0.1*float64(seq) // the wall ahead comes closer
		s := laser.Scan{Seq: seq}
		for deg := range 180 {
			a := float64(deg-90) * math.Pi / 180
			d := 1.0 / math.Max(math.Abs(math.Sin(a)), 1e-3) // corridor walls 1 m either side
			if c := math.Cos(a); c > 1e-3 {
				d = math.Min(d, wall/c)
			}
			s.Points = append(s.Points, laser.Point{Angle: a, Dist: math.Min(d, 30)})
		}
		if err := enc.Encode(s); err != nil {
			log.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
