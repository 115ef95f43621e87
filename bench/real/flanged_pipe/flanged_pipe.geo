// A flanged spool under internal pressure (C3D10): a pipe between two flanges, an eighth of it
// (symmetry planes x = 0, y = 0 and the mid-plane z = 0): bore radius 50 mm, wall 15 mm, z
// 0..120, a flange z 120..140 of outer radius 100 with a 5 mm fillet at the pipe; the flange
// face z = 140 sits on a rigid seat (u_z = 0); pressure on the bore (bench/lib/make_real.py).
// s scales every element size.
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
ri = 50; ro = 65; Lp = 120; rfl = 100; tf = 20; rf = 5;
Point(1) = {ri, 0, 0}; Point(2) = {ro, 0, 0}; Point(3) = {ro, 0, Lp - rf};
Point(4) = {ro + rf, 0, Lp - rf}; Point(5) = {ro + rf, 0, Lp}; Point(6) = {rfl, 0, Lp};
Point(7) = {rfl, 0, Lp + tf}; Point(8) = {ri, 0, Lp + tf};
Line(1) = {1, 2}; Line(2) = {2, 3}; Circle(3) = {3, 4, 5}; Line(4) = {5, 6}; Line(5) = {6, 7};
Line(6) = {7, 8}; Line(7) = {8, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6, 7};
Plane Surface(1) = {1};
out[] = Extrude {{0, 0, 1}, {0, 0, 0}, Pi / 2} { Surface{1}; };
e = 1e-3;
Field[1] = Distance; Field[1].CurvesList = {3};
Field[2] = Threshold; Field[2].InField = 1; Field[2].SizeMin = 2.0 * s; Field[2].SizeMax = 4 * s;
Field[2].DistMin = 2; Field[2].DistMax = 30;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0; Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 2; Mesh.SecondOrderLinear = 1;
Physical Volume("part") = {out[1]};
Physical Surface("bore") = Surface In BoundingBox{-ri - e, -ri - e, -e, ri + e, ri + e, Lp + tf + e};
Physical Surface("mid") = Surface In BoundingBox{-ro - e, -ro - e, -e, ro + e, ro + e, e};
Physical Surface("seat") = Surface In BoundingBox{-rfl - e, -rfl - e, Lp + tf - e, rfl + e, rfl + e, Lp + tf + e};
Physical Surface("symx") = Surface In BoundingBox{-e, -e, -e, e, rfl + e, Lp + tf + e};
Physical Surface("symy") = Surface In BoundingBox{-e, -e, -e, rfl + e, e, Lp + tf + e};
