// The tetrahedral mesh of the partition tests (lbracket_tet4.msh): the L-bracket of
// bench/real/lbracket_c3d8 in linear tetrahedra at element size scale s = 3.
// gmsh -3 -setnumber s 3 lbracket_tet4.geo -format msh41 -o lbracket_tet4.msh
hex = 0;
Include "../../bench/real/lbracket_c3d8/lbracket_c3d8.geo";
Mesh.ElementOrder = 1;
