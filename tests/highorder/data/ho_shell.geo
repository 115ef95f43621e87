// A quarter of a thick cylindrical shell, inner radius 1, outer 1.5, height 0.5, meshed with
// hexahedra (transfinite quarter annulus, recombined, extruded in 2 layers): 4 elements along
// the arc, 2 through the thickness, 2 in height. Volume pi/4 (1.5^2 - 1^2) 0.5.
// Used by tests/highorder/test_ho_mesh_gmsh.c: gmsh -3 -order P -format msh4 ho_shell.geo
SetFactory("OpenCASCADE");
Ri = 1.0; Ro = 1.5; H = 0.5;
Point(1) = {0, 0, 0};
Point(2) = {Ri, 0, 0};
Point(3) = {Ro, 0, 0};
Point(4) = {0, Ro, 0};
Point(5) = {0, Ri, 0};
Line(1) = {2, 3};
Circle(2) = {3, 1, 4};
Line(3) = {4, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3;
Transfinite Curve{2, 4} = 5;
Transfinite Surface{1};
Recombine Surface{1};
out[] = Extrude {0, 0, H} { Surface{1}; Layers{2}; Recombine; };
Physical Volume("solid") = {out[1]};
Physical Surface("bottom") = {1};
Physical Surface("top") = {out[0]};
Physical Surface("y0") = {out[2]};
Physical Surface("outer") = {out[3]};
Physical Surface("x0") = {out[4]};
Physical Surface("inner") = {out[5]};
Physical Curve("inner_edge") = {4};
Physical Point("corner") = {2};
