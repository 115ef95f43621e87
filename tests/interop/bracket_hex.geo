// The L-shaped bracket of bracket.geo as hexahedra: the L at z = 20 recombined into
// quadrangles and extruded down to z = 0 in 4 layers. Extruded downwards, every hexahedron Gmsh
// writes is inverted (its first face is the top one, listed counterclockwise seen from above),
// so the importer turns each one (dt_imp_flip). With "-order 2" and
// Mesh.SecondOrderIncomplete = 1, Gmsh writes 20-node hexahedra (element type 17) with 8-node
// quadrangle faces; the physical groups are bracket.geo's.
Mesh.CharacteristicLengthMax = 5;
Point(1) = {0, 0, 20};
Point(2) = {40, 0, 20};
Point(3) = {40, 10, 20};
Point(4) = {10, 10, 20};
Point(5) = {10, 40, 20};
Point(6) = {0, 40, 20};
For i In {1:6}
  Line(i) = {i, i % 6 + 1};
EndFor
Curve Loop(1) = {1:6};
Plane Surface(1) = {1};
Recombine Surface{1};
out[] = Extrude {0, 0, -20} { Surface{1}; Layers{4}; Recombine; };
Physical Volume("bracket") = {out[1]};
fix() = Surface In BoundingBox{-1, 39, -1, 11, 41, 21};
load() = Surface In BoundingBox{39, -1, -1, 41, 11, 21};
Physical Surface("fixed") = {fix()};
Physical Surface("loaded") = {load()};
