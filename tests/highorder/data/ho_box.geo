// The box [0,2]x[0,1]x[0,1] in 2 x 2 x 2 transfinite hexahedra, for the node-by-node comparison
// with dt_ho_mesh_box in tests/highorder/test_ho_mesh_gmsh.c (gmsh -3 -order P ho_box.geo).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Transfinite Curve{:} = 3;
Transfinite Surface{:};
Recombine Surface{:};
Transfinite Volume{1};
Physical Volume("solid") = {1};
