// Lug (eye-bar) with a pin load (C3D10): a 15 mm plate, shank x 0..100 and 60 mm wide, a round
// head of radius 30 about (100, 0) with a 12 mm radius pin hole; x = 0 welded (clamped); the
// pin pulls in +x: the half of the bore facing +x is displaced (bench/lib/make_real.py picks
// those nodes). No contact. s scales every element size.
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
T = 15; Ls = 100; Rh = 30; Rp = 12;
Box(1) = {0, -Rh, 0, Ls, 2 * Rh, T};
Cylinder(2) = {Ls, 0, 0, 0, 0, T, Rh};
BooleanUnion{ Volume{1}; Delete; }{ Volume{2}; Delete; }
Cylinder(3) = {Ls, 0, 0, 0, 0, T, Rp};
BooleanDifference{ Volume{1}; Delete; }{ Volume{3}; Delete; }
e = 1e-3;
bore() = Surface In BoundingBox{Ls - Rp - e, -Rp - e, -e, Ls + Rp + e, Rp + e, T + e};
Field[1] = Distance; Field[1].SurfacesList = {bore()};
Field[2] = Threshold; Field[2].InField = 1; Field[2].SizeMin = 1.0 * s; Field[2].SizeMax = 4 * s;
Field[2].DistMin = 1; Field[2].DistMax = 30;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0; Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 2; Mesh.SecondOrderLinear = 1;
Physical Volume("part") = {1};
Physical Surface("fix") = Surface In BoundingBox{-e, -Rh - e, -e, e, Rh + e, T + e};
Physical Surface("bore") = {bore()};
