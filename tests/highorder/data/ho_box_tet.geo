// The same box in tetrahedra: an order-P mesh must refuse it (test_ho_mesh_gmsh.c).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Mesh.MeshSizeMax = 0.6;
