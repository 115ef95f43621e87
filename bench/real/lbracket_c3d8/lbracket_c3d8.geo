// L-bracket (C3D8: a quadrangle mesh of the profile extruded in layers; lbracket_c3d10.geo
// includes this file with hex = 0 for tetrahedra). Profile in x-y, 10 mm thick legs: the
// vertical leg (x 0..10, y 0..80) is bolted at y = 80 (clamped), the horizontal arm (x 0..100,
// y 0..10) is pushed down at its end x = 100; a 6 mm fillet at the inner corner; 30 mm wide in
// z. s scales every element size.
SetFactory("OpenCASCADE");
DefineConstant[ s = {1, Name "s"} ];
If (!Exists(hex))
  hex = 1;
EndIf
t = 10; H = 80; Lh = 100; w = 30; rf = 6;
h = 2.5 * s;   // element size away from the corner
hc = 1.0 * s;  // at the fillet
Point(1) = {0, 0, 0, hc}; Point(2) = {Lh, 0, 0, h}; Point(3) = {Lh, t, 0, h};
Point(4) = {t + rf, t, 0, hc}; Point(5) = {t + rf, t + rf, 0, hc}; Point(6) = {t, t + rf, 0, hc};
Point(7) = {t, H, 0, h}; Point(8) = {0, H, 0, h};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Circle(4) = {4, 5, 6};
Line(5) = {6, 7}; Line(6) = {7, 8}; Line(7) = {8, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6, 7};
Plane Surface(1) = {1};
Mesh.MeshSizeFromCurvature = 0;
If (hex)
  Recombine Surface{1};
  Mesh.Algorithm = 6;               // frontal-Delaunay (8, the quadrangle variant, crashes gmsh 4.8.4)
  Mesh.RecombinationAlgorithm = 3;  // blossom full-quad: no triangle left (a prism would be refused)
  out[] = Extrude {0, 0, w} { Surface{1}; Layers{Ceil(w / (1.5 * h))}; Recombine; };
Else
  out[] = Extrude {0, 0, w} { Surface{1}; };
  Mesh.ElementOrder = 2; Mesh.SecondOrderLinear = 1;
EndIf
e = 1e-3;
Physical Volume("part") = {out[1]};
Physical Surface("fix") = Surface In BoundingBox{-e, H - e, -e, t + e, H + e, w + e};
Physical Surface("load") = Surface In BoundingBox{Lh - e, -e, -e, Lh + e, t + e, w + e};
