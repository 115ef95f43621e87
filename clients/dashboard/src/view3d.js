// The 3D view: parse an increment's VTU (binary appended, solver/io/output_vtu.c), extract the boundary
// faces, draw them displaced by scale × U and coloured by a nodal field (MISES, PEEQ, or |U|, the
// one field of an explicit run's shells) with three.js; orbit with the mouse.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

// Faces of each VTK cell type (node indices within the cell); quadratic cells use their corners.
const FACES = {
  12: [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]],
  10: [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
  24: [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
  // hex20, hex20r (VTK_QUADRATIC_HEXAHEDRON): drawn by their corners, as hex8
  25: [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]],
  // wedge6, wedge15 (VTK_WEDGE, VTK_QUADRATIC_WEDGE: VTK's node order, whose 0-1-2 faces out)
  13: [[0, 1, 2], [3, 5, 4], [0, 3, 4, 1], [1, 4, 5, 2], [2, 5, 3, 0]],
  26: [[0, 1, 2], [3, 5, 4], [0, 3, 4, 1], [1, 4, 5, 2], [2, 5, 3, 0]],
  9: [[0, 1, 2, 3]],
  5: [[0, 1, 2]],
  // quad8, quad9, quad16 (quadratic and Lagrange quads): drawn by their corners
  23: [[0, 1, 2, 3]],
  28: [[0, 1, 2, 3]],
  70: [[0, 1, 2, 3]],
};

function numbers(el) {
  const parts = el.textContent.trim().split(/\s+/);
  const out = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = +parts[i];
  return out;
}

const TYPED = {
  Float64: Float64Array,
  Float32: Float32Array,
  Int64: BigInt64Array,
  UInt64: BigUint64Array,
  Int32: Int32Array,
  UInt32: Uint32Array,
  Int8: Int8Array,
  UInt8: Uint8Array,
};

// First index of the byte sequence pat in bytes, or -1.
function find(bytes, pat) {
  for (let i = bytes.indexOf(pat[0]); i >= 0 && i + pat.length <= bytes.length; i = bytes.indexOf(pat[0], i + 1)) {
    let k = 1;
    while (k < pat.length && bytes[i + k] === pat[k]) k++;
    if (k === pat.length) return i;
  }
  return -1;
}

// {points: Float64Array(3n), conn, offsets, types, point: {U, MISES, PEEQ, ...}} from the bytes
// (ArrayBuffer) of a VTU: binary appended as the solver writes it (raw, UInt64 block headers,
// little-endian, like the browser), or ASCII. The XML header is parsed up to <AppendedData>;
// each array is a UInt64 byte count then its values at base + offset, base just after the '_'.
export function parseVtu(buf) {
  const bytes = new Uint8Array(buf);
  const at = find(bytes, new TextEncoder().encode("<AppendedData"));
  const head = new TextDecoder().decode(bytes.subarray(0, at < 0 ? bytes.length : at));
  const doc = new DOMParser().parseFromString(at < 0 ? head : `${head}</VTKFile>`, "application/xml");
  if (doc.querySelector("parsererror")) throw new Error("the VTU is not valid XML");
  const root = doc.documentElement;
  if (at >= 0 && (root.getAttribute("header_type") !== "UInt64" || root.getAttribute("byte_order") !== "LittleEndian"))
    throw new Error("the VTU's appended data is not UInt64-headed little-endian");
  const base = at < 0 ? -1 : bytes.indexOf(0x5f, at) + 1; // just after the '_'
  const view = new DataView(buf);
  const values = (el) => {
    const format = el.getAttribute("format") || "ascii";
    if (format === "ascii") return numbers(el);
    const T = TYPED[el.getAttribute("type")];
    if (format !== "appended" || base <= 0 || !T) throw new Error(`the VTU has an array in a form not read here (${format})`);
    const off = base + Number(el.getAttribute("offset"));
    const n = Number(view.getBigUint64(off, true));
    if (off + 8 + n > bytes.length) throw new Error("the VTU is truncated");
    const a = new T(buf.slice(off + 8, off + 8 + n)); // a copy: typed arrays need aligned starts
    return a instanceof BigInt64Array || a instanceof BigUint64Array ? Float64Array.from(a, Number) : a;
  };
  const piece = doc.querySelector("Piece");
  if (!piece) throw new Error("the VTU has no Piece");
  const points = values(piece.querySelector("Points > DataArray"));
  const cells = {};
  for (const a of piece.querySelectorAll("Cells > DataArray")) cells[a.getAttribute("Name")] = values(a);
  const point = {};
  for (const a of piece.querySelectorAll("PointData > DataArray")) point[a.getAttribute("Name")] = values(a);
  if (point.U) point["|U|"] = Float64Array.from({ length: point.U.length / 3 }, (_, i) => Math.hypot(point.U[3 * i], point.U[3 * i + 1], point.U[3 * i + 2]));
  return { points, conn: cells.connectivity, offsets: cells.offsets, types: cells.types, point };
}

// Faces that belong to one cell only (the surface), as triangles; and their edges.
function boundary(mesh) {
  const count = new Map();
  const faces = [];
  let start = 0;
  for (let c = 0; c < mesh.types.length; c++) {
    const end = mesh.offsets[c];
    for (const f of FACES[mesh.types[c]] || []) {
      const nodes = f.map((k) => mesh.conn[start + k]);
      const key = [...nodes].sort((a, b) => a - b).join(",");
      count.set(key, (count.get(key) || 0) + 1);
      faces.push([key, nodes]);
    }
    start = end;
  }
  const tris = [];
  const edges = new Set();
  for (const [key, n] of faces) {
    if (count.get(key) !== 1) continue;
    for (let i = 1; i + 1 < n.length; i++) tris.push(n[0], n[i], n[i + 1]);
    for (let i = 0; i < n.length; i++) {
      const a = n[i];
      const b = n[(i + 1) % n.length];
      edges.add(a < b ? `${a},${b}` : `${b},${a}`);
    }
  }
  const lines = [];
  for (const e of edges) lines.push(...e.split(",").map(Number));
  return { tris, lines };
}

// A blue→cyan→green→yellow→red map (t in [0, 1]).
export function colormap(t) {
  t = Math.min(1, Math.max(0, t));
  const r = Math.min(1, Math.max(0, 1.5 - Math.abs(4 * t - 3)));
  const g = Math.min(1, Math.max(0, 1.5 - Math.abs(4 * t - 2)));
  const b = Math.min(1, Math.max(0, 1.5 - Math.abs(4 * t - 1)));
  return [r, g, b];
}

export class MeshView {
  constructor(container) {
    this.container = container;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(0xf4f6f8);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.add(new THREE.AmbientLight(0xffffff, 1.2));
    this.light = new THREE.DirectionalLight(0xffffff, 2.0);
    this.scene.add(this.light);
    this.camera = new THREE.PerspectiveCamera(40, 1, 1e-3, 1e6);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.render());
    this.scale = 1;
    this.field = "MISES";
    this.mesh = null;
    this.fitted = false;
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  resize() {
    const w = this.container.clientWidth || 300;
    const h = this.container.clientHeight || 300;
    this.renderer.setSize(w, h, false);
    this.renderer.domElement.style.width = "100%";
    this.renderer.domElement.style.height = "100%";
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  // Show a parsed VTU; keeps the camera when the mesh is the same size as before.
  setMesh(mesh) {
    const keepCamera = this.mesh && this.mesh.points.length === mesh.points.length && this.fitted;
    this.mesh = mesh;
    if (!this.surface || !keepCamera) this.surface = boundary(mesh);
    this.build();
    if (!keepCamera) this.fit();
    this.render();
  }

  // A deformation scale that makes the largest displacement about 10% of the model size.
  autoScale() {
    const U = this.mesh && this.mesh.point.U;
    if (!U) return 1;
    let umax = 0;
    for (let i = 0; i < U.length; i += 3) umax = Math.max(umax, Math.hypot(U[i], U[i + 1], U[i + 2]));
    if (umax === 0) return 1;
    const s = (0.1 * this.size) / umax;
    const mag = 10 ** Math.floor(Math.log10(s));
    return [1, 2, 5, 10].map((k) => k * mag).reduce((best, v) => (Math.abs(v - s) < Math.abs(best - s) ? v : best));
  }

  fields() {
    return ["MISES", "PEEQ", "|U|"].filter((f) => this.mesh && this.mesh.point[f]);
  }

  range() {
    const v = this.mesh && this.mesh.point[this.field];
    if (!v || !v.length) return null;
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of v) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    // A uniform field (round-off apart) gets one colour instead of amplified noise.
    if (hi - lo <= 1e-6 * Math.max(Math.abs(lo), Math.abs(hi))) return [lo, lo];
    return [lo, hi];
  }

  build() {
    const m = this.mesh;
    const n = m.points.length / 3;
    const pos = new Float32Array(n * 3);
    const U = m.point.U;
    for (let i = 0; i < n * 3; i++) pos[i] = m.points[i] + (U ? this.scale * U[i] : 0);
    const col = new Float32Array(n * 3);
    const v = m.point[this.field];
    const r = this.range();
    for (let i = 0; i < n; i++) {
      const t = v && r && r[1] > r[0] ? (v[i] - r[0]) / (r[1] - r[0]) : 0.5;
      const c = v ? colormap(t) : [0.6, 0.65, 0.7];
      col.set(c, 3 * i);
    }
    if (!this.meshObj) {
      this.geom = new THREE.BufferGeometry();
      this.meshObj = new THREE.Mesh(this.geom, new THREE.MeshLambertMaterial({
        vertexColors: true, side: THREE.DoubleSide, flatShading: true,
        polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1,
      }));
      this.edgeGeom = new THREE.BufferGeometry();
      this.edges = new THREE.LineSegments(this.edgeGeom, new THREE.LineBasicMaterial({ color: 0x223344, transparent: true, opacity: 0.35 }));
      this.scene.add(this.meshObj, this.edges);
    }
    this.geom.setAttribute("position", new THREE.BufferAttribute(pos, 3));
    this.geom.setAttribute("color", new THREE.BufferAttribute(col, 3));
    this.geom.setIndex(this.surface.tris);
    this.geom.computeVertexNormals();
    this.geom.computeBoundingSphere();
    this.edgeGeom.setAttribute("position", new THREE.BufferAttribute(pos, 3));
    this.edgeGeom.setIndex(this.surface.lines);
  }

  fit() {
    const p = this.mesh.points;
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i++) { lo[i % 3] = Math.min(lo[i % 3], p[i]); hi[i % 3] = Math.max(hi[i % 3], p[i]); }
    const c = new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    this.size = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
    const flat = hi[2] - lo[2] < 1e-9 * this.size;
    const dir = flat ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1.6, -2.2, 1.3).normalize();
    this.camera.up.set(flat ? 0 : 0, flat ? 1 : 0, flat ? 0 : 1);
    const vfov = (this.camera.fov * Math.PI) / 180;
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * this.camera.aspect);
    this.camera.position.copy(c).addScaledVector(dir, (0.5 * this.size * 1.05) / Math.sin(Math.min(vfov, hfov) / 2));
    this.camera.near = this.size * 1e-3;
    this.camera.far = this.size * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(c);
    this.controls.update();
    this.light.position.copy(this.camera.position).add(new THREE.Vector3(0, 0, this.size));
    this.fitted = true;
  }

  setScale(s) {
    this.scale = s;
    if (this.mesh) { this.build(); this.render(); }
  }

  setField(f) {
    this.field = f;
    if (this.mesh) { this.build(); this.render(); }
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

  dispose() {
    this.controls.dispose();
    this.renderer.dispose();
    this.renderer.domElement.remove();
  }
}
