// Package laser is the recorded laser-scanner data examples/robot replays:
// scans of (angle, distance) points, gob-encoded one after another.
package laser

// Point is one beam of a scan: its angle in radians and the distance in
// metres to what it hit.
type Point struct {
	Angle, Dist float64
}

// Scan is one sweep of the scanner.
type Scan struct {
	Seq    int
	Points []Point
}
