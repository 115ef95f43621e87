// The L-shaped bracket of bracket.geo as wedges (prisms): the L at z = 20 meshed with triangles
// and extruded down to z = 0 in 4 layers (Recombine makes the layers prisms, not tetrahedra).
// Gmsh writes 6-node prisms (element type 6), positively oriented (gmsh 4.8 does whichever way
// the surface is extruded; an inverted prism is turned by the importer, which
// interop_gmsh_wedge15 checks); with "-order 2" and Mesh.SecondOrderIncomplete = 1, 15-node
// prisms (type 18) with 8-node quadrangle side faces. The physical groups are bracket.geo's:
// "fixed" and "loaded" are side faces, quadrangles.
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
out[] = Extrude {0, 0, -20} { Surface{1}; Layers{4}; Recombine; };
Physical Volume("bracket") = {out[1]};
fix() = Surface In BoundingBox{-1, 39, -1, 11, 41, 21};
load() = Surface In BoundingBox{39, -1, -1, 41, 11, 21};
Physical Surface("fixed") = {fix()};
Physical Surface("loaded") = {load()};
