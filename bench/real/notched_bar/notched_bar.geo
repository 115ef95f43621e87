// Round bar with a circumferential U notch in tension (C3D10): radius 10 mm, 80 mm long along
// z, notch of root radius 2 mm and depth 2 mm at z = 40 (net radius 8 mm); z = 0 clamped,
// z = 80 gripped and pulled in z. s scales every element size.
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
R = 10; Lz = 80; rn = 2;
Cylinder(1) = {0, 0, 0, 0, 0, Lz, R};
Torus(2) = {0, 0, Lz / 2, R, rn};
BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; }
e = 1e-3;
notch() = Surface In BoundingBox{-R - e, -R - e, Lz / 2 - rn - e, R + e, R + e, Lz / 2 + rn + e};
Field[1] = Distance; Field[1].SurfacesList = {notch()};
Field[2] = Threshold; Field[2].InField = 1; Field[2].SizeMin = 0.5 * s; Field[2].SizeMax = 2.5 * s;
Field[2].DistMin = 0.5; Field[2].DistMax = 12;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0; Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 2; Mesh.SecondOrderLinear = 1;
Physical Volume("part") = {1};
Physical Surface("fix") = Surface In BoundingBox{-R - e, -R - e, -e, R + e, R + e, e};
Physical Surface("load") = Surface In BoundingBox{-R - e, -R - e, Lz - e, R + e, R + e, Lz + e};
