// Cantilever [0,4] x [0,1] x [0,1] in nx x ny x ny hexahedra (extruded, recombined), clamped on
// "root" (x = 0), loaded on "tip" (x = 4): tests/highorder/ho_gmsh_job.py runs it through
// ductile-solve at orders 1 and 2 (gmsh -3 -order P [-setnumber nx 32 -setnumber ny 8]).
SetFactory("OpenCASCADE");
If (!Exists(nx))
  nx = 8;
EndIf
If (!Exists(ny))
  ny = 2;
EndIf
e = 1e-6;
Point(1) = {0, 0, 0};
l[] = Extrude {4, 0, 0} { Point{1}; Layers{nx}; };
s[] = Extrude {0, 1, 0} { Curve{l[1]}; Layers{ny}; Recombine; };
v[] = Extrude {0, 0, 1} { Surface{s[1]}; Layers{ny}; Recombine; };
Physical Volume("beam") = {v[1]};
Physical Surface("root") = Surface In BoundingBox{-e, -e, -e, e, 1 + e, 1 + e};
Physical Surface("tip") = Surface In BoundingBox{4 - e, -e, -e, 4 + e, 1 + e, 1 + e};
