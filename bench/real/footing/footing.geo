// A smooth rigid square footing on undrained clay (C3D8), a quarter (symmetry planes x = 0 and
// y = 0): soil 3 x 3 x 1.5 m, the footing 0.5 x 0.5 m at the corner of the top face z = 1.5,
// pushed down; x = 3 and y = 3 rollers, bottom fixed. A structured hex mesh, uniform under the
// footing and graded away from it (a quadrangle grid of the top face extruded down in graded
// layers). s scales every element size.
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
L = 3; H = 1.5; b = 0.5;
nb = Round(10 / s);   // elements across the footing's half width
no = Round(14 / s);   // from the footing's edge to x = L, growing
nz = Round(18 / s);   // layers, growing with depth
g = 1.08 ^ s;         // growth ratio of the outer elements (the same extent at any s)
Point(1) = {0, 0, H}; Point(2) = {b, 0, H}; Point(3) = {L, 0, H};
Point(4) = {0, b, H}; Point(5) = {b, b, H}; Point(6) = {L, b, H};
Point(7) = {0, L, H}; Point(8) = {b, L, H}; Point(9) = {L, L, H};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {4, 5}; Line(4) = {5, 6};
Line(5) = {7, 8}; Line(6) = {8, 9};
Line(7) = {1, 4}; Line(8) = {4, 7}; Line(9) = {2, 5}; Line(10) = {5, 8};
Line(11) = {3, 6}; Line(12) = {6, 9};
Curve Loop(1) = {1, 9, -3, -7}; Plane Surface(1) = {1};
Curve Loop(2) = {2, 11, -4, -9}; Plane Surface(2) = {2};
Curve Loop(3) = {3, 10, -5, -8}; Plane Surface(3) = {3};
Curve Loop(4) = {4, 12, -6, -10}; Plane Surface(4) = {4};
Transfinite Curve{1, 3, 5, 7, 9, 11} = nb + 1;
Transfinite Curve{2, 4, 6, 8, 10, 12} = no + 1 Using Progression g;
Transfinite Surface{1, 2, 3, 4};
Recombine Surface{1, 2, 3, 4};
// graded layers: thickness ratio g between neighbours, the thinnest at the top
n() = {}; hz() = {}; tot = 0; sum = 0;
For i In {0 : nz - 1}
  tot += g ^ i;
EndFor
For i In {0 : nz - 1}
  sum += g ^ i;
  n() += 1; hz() += sum / tot;
EndFor
out[] = Extrude {0, 0, -H} { Surface{1, 2, 3, 4}; Layers{n(), hz()}; Recombine; };
e = 1e-3;
Physical Volume("soil") = Volume{:};
Physical Surface("footing") = Surface In BoundingBox{-e, -e, H - e, b + e, b + e, H + e};
Physical Surface("symx") = Surface In BoundingBox{-e, -e, -e, e, L + e, H + e};
Physical Surface("symy") = Surface In BoundingBox{-e, -e, -e, L + e, e, H + e};
Physical Surface("farx") = Surface In BoundingBox{L - e, -e, -e, L + e, L + e, H + e};
Physical Surface("fary") = Surface In BoundingBox{-e, L - e, -e, L + e, L + e, H + e};
Physical Surface("bottom") = Surface In BoundingBox{-e, -e, -e, L + e, L + e, e};
