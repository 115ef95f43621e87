// A simplified single-throw crankshaft, meshed with hexahedra only (issue 33: a swept model of
// the seed's largest size, refined on reading by ductile-hoexplicit --msh --refine).
//
// Along z: main journal 1 (radius Rj, length Lj, axis x = y = 0), web 1 (thickness Tw, a stadium
// of radius Rw around the journal and pin axes), the crankpin (radius Rp, length Lp, axis
// x = 0, y = E), web 2, main journal 2. Every piece is a sweep along z of the same cross-section,
// cut into three faces (journal disk, pin disk, the web around them) and meshed with
// quadrangles: the whole cross-section is extruded through the five segments with Layers and
// Recombine (hexahedra only), and the physical volume "crank" keeps the pieces of the part
// (journal disk in segments 1 and 5, everything in 2 and 4, pin disk in 3); gmsh writes only
// the elements of physical groups, so the other sweeps never reach the file.
//
// Physical surfaces: "journal_ends" (the two end faces of the main journals, to fix) and
// "pin_top" (the crankpin's surface over the 60-degree sector facing away from the main axis,
// +y, as the seed loads its crankpins over 60 degrees). Sizes: sf scales the element size
// (gmsh -setnumber sf 2 ...: about 1/8 the elements). At sf = 1: 27,580 hexahedra, 2.9 MB.
//   gmsh -3 -format msh4 -bin -o crank.msh bench/explicit/crank.geo
SetFactory("OpenCASCADE");
DefineConstant[ sf = 1 ];
Rj = 1.0; Rp = 0.8; E = 2.0; Rw = 1.6; Tw = 0.8; Lj = 1.5; Lp = 1.6;
h = 0.132 * sf;  // element size in the cross-section
hz = 0.115 * sf; // layer thickness along z
Mesh.CharacteristicLengthMin = h;
Mesh.CharacteristicLengthMax = h;
Mesh.Algorithm = 6;             // frontal-Delaunay, recombined (gmsh 4.8.4 crashes with 8 here)
Mesh.RecombinationAlgorithm = 2; // blossom full-quad
Mesh.RecombineAll = 1;

// the cross-section: stadium of radius Rw around (0, 0) and (0, E), with the two disks; the
// pin's circle in arcs cut at 60 and 120 degrees (pin_top's sector), the journal's in three
Point(1) = {0, 0, 0};
Point(2) = {Rj, 0, 0};
Point(3) = {Rj * Cos(2 * Pi / 3), Rj * Sin(2 * Pi / 3), 0};
Point(8) = {Rj * Cos(2 * Pi / 3), -Rj * Sin(2 * Pi / 3), 0};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 8};
Circle(6) = {8, 1, 2};
Curve Loop(1) = {1, 2, 6};
Plane Surface(1) = {1};
Point(4) = {0, E, 0};
Point(5) = {Rp * Cos(Pi / 3), E + Rp * Sin(Pi / 3), 0};
Point(6) = {-Rp * Cos(Pi / 3), E + Rp * Sin(Pi / 3), 0};
Point(7) = {0, E - Rp, 0};
Circle(3) = {5, 4, 6};
Circle(4) = {6, 4, 7};
Circle(5) = {7, 4, 5};
Curve Loop(2) = {3, 4, 5};
Plane Surface(2) = {2};
Disk(3) = {0, 0, 0, Rw};
Disk(4) = {0, E, 0, Rw};
Rectangle(5) = {-Rw, 0, 0, 2 * Rw, E};
web() = BooleanUnion{ Surface{3}; Delete; }{ Surface{4, 5}; Delete; };
BooleanFragments{ Surface{web(), 1, 2}; Delete; }{}
sec() = Surface{:};

z() = {0, Lj, Lj + Tw, Lj + Tw + Lp, Lj + 2 * Tw + Lp, 2 * Lj + 2 * Tw + Lp};
top() = sec();
For k In {0 : 4}
  L = z(k + 1) - z(k);
  Extrude {0, 0, L} { Surface{top()}; Layers{ Ceil(L / hz) }; Recombine; }
  top() = Surface In BoundingBox {-Rw - 1e-3, -Rw - 1e-3, z(k + 1) - 1e-3,
                                   Rw + 1e-3, E + Rw + 1e-3, z(k + 1) + 1e-3};
EndFor

eps = 1e-3;
jv() = Volume In BoundingBox {-Rj - eps, -Rj - eps, -eps, Rj + eps, Rj + eps, z(1) + eps};
jv() += Volume In BoundingBox {-Rj - eps, -Rj - eps, z(4) - eps, Rj + eps, Rj + eps, z(5) + eps};
wv() = Volume In BoundingBox {-Rw - eps, -Rw - eps, z(1) - eps, Rw + eps, E + Rw + eps, z(2) + eps};
wv() += Volume In BoundingBox {-Rw - eps, -Rw - eps, z(3) - eps, Rw + eps, E + Rw + eps, z(4) + eps};
pv() = Volume In BoundingBox {-Rp - eps, E - Rp - eps, z(2) - eps, Rp + eps, E + Rp + eps, z(3) + eps};
Physical Volume("crank") = {jv(), wv(), pv()};
ends() = Surface In BoundingBox {-Rj - eps, -Rj - eps, -eps, Rj + eps, Rj + eps, eps};
ends() += Surface In BoundingBox {-Rj - eps, -Rj - eps, z(5) - eps, Rj + eps, Rj + eps, z(5) + eps};
Physical Surface("journal_ends") = {ends()};
Physical Surface("pin_top") = Surface In BoundingBox {-Rp * Cos(Pi / 3) - eps, E + Rp * Sin(Pi / 3) - eps,
  z(2) - eps, Rp * Cos(Pi / 3) + eps, E + Rp + eps, z(3) + eps};
