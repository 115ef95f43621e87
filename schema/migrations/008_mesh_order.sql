-- Version 8: order-P meshes (issue 33). A Gmsh upload of Lagrange hexahedra of order 2..8 runs on
-- the order-P solver (docs/highorder.md). ho_order, read from the file once at the upload, says
-- which solver a job on the mesh takes and is the mesh's "order" in the API; 0 for every other
-- mesh (JSON meshes, Gmsh files of the regular element types, meshes stored before this version).
ALTER TABLE meshes ADD COLUMN ho_order INTEGER NOT NULL DEFAULT 0;
