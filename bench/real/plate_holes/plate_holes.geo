// Plate with two holes in tension (C3D10). 200 x 80 x 10 mm, holes of radius 12 at x = 70 and
// 130; x = 0 clamped, x = 200 gripped and pulled in x (bench/lib/make_real.py sets the loads).
// s scales every element size (bench/lib/make_real.py: gmsh -setnumber s S).
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
L = 200; W = 80; T = 10; R = 12;
Box(1) = {0, 0, 0, L, W, T};
Cylinder(2) = {70, W / 2, 0, 0, 0, T, R};
Cylinder(3) = {130, W / 2, 0, 0, 0, T, R};
BooleanDifference{ Volume{1}; Delete; }{ Volume{2, 3}; Delete; }
e = 1e-3;
holes() = Surface In BoundingBox{70 - R - e, W / 2 - R - e, -e, 130 + R + e, W / 2 + R + e, T + e};
// Finer elements at the holes, where the plastic zones grow.
Field[1] = Distance; Field[1].SurfacesList = {holes()};
Field[2] = Threshold; Field[2].InField = 1; Field[2].SizeMin = 1.2 * s; Field[2].SizeMax = 5 * s;
Field[2].DistMin = 1; Field[2].DistMax = 25;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0; Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 2; Mesh.SecondOrderLinear = 1; // straight-sided tet10: never inverted
Physical Volume("part") = {1};
Physical Surface("fix") = Surface In BoundingBox{-e, -e, -e, e, W + e, T + e};
Physical Surface("load") = Surface In BoundingBox{L - e, -e, -e, L + e, W + e, T + e};
