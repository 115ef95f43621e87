// An L-shaped bracket (3D, tetrahedra): physical groups for the round trip test.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 40, 10, 20};
Box(2) = {0, 0, 0, 10, 40, 20};
BooleanUnion{ Volume{1}; Delete; }{ Volume{2}; Delete; }
Mesh.CharacteristicLengthMax = 5;
Physical Volume("bracket") = {1};
fix() = Surface In BoundingBox{-1, 39, -1, 11, 41, 21};
load() = Surface In BoundingBox{39, -1, -1, 41, 11, 21};
Physical Surface("fixed") = {fix()};
Physical Surface("loaded") = {load()};
