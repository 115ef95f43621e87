// The L-bracket of lbracket_c3d8.geo meshed with straight-sided tet10 (C3D10).
hex = 0;
Include "../lbracket_c3d8/lbracket_c3d8.geo";
