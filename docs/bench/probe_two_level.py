#!/usr/bin/python3
"""Probe (not part of the build): how many PCG iterations would a two-level preconditioner save?

Kiran's cube as an elastic hex8 model (n x n x n elements, bottom face clamped, a top-face load),
assembled with scipy, solved by PCG to 1e-7 with
  - the 3x3 block-Jacobi preconditioner ductile ships;
  - block Jacobi plus an additive coarse correction  M^-1 = BJ^-1 + Z E^-1 Z^T,  E = Z^T A Z,
    Z = the rigid-body modes (3 translations, 3 rotations) of each of k^3 boxes of nodes,
    zero on clamped DOFs (Nicolaides-type coarse space);
  - the "balancing" (A-DEF2) form of the same coarse space.
Run with Debian's python3-scipy:  /usr/bin/python3 probe_two_level.py N NU K1,K2,...
(LINEAR=1: 12 modes per box, every linear displacement field of the box, not only the rigid ones.)
Output of 2026-11-21 23:35 UTC: probe_two_level_2026-11-21T2335.log (docs/benchmarks.md); with
LINEAR=1 and without, 2026-11-22 01:40 UTC: probe_two_level_linear_2026-11-22T0140.log."""
import numpy as np, scipy.sparse as sp, scipy.linalg as sla, sys, time, os
n = int(sys.argv[1]); nu = float(sys.argv[2]); ks = [int(k) for k in sys.argv[3].split(',')]
E = 200e3
lam = E*nu/((1+nu)*(1-2*nu)); mu = E/(2*(1+nu))
D = np.zeros((6,6)); D[:3,:3] = lam; D[np.arange(3),np.arange(3)] += 2*mu; D[3,3]=D[4,4]=D[5,5]=mu
h = 1.0/n
# hex8 reference
corners = np.array([[-1,-1,-1],[1,-1,-1],[1,1,-1],[-1,1,-1],[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]],float)
g = 1/np.sqrt(3)
Ke = np.zeros((24,24))
for a in (-g,g):
  for b in (-g,g):
    for c in (-g,g):
      xi = np.array([a,b,c])
      dN = np.zeros((8,3))
      for A in range(8):
        s = corners[A]
        f = (1+s*xi)
        dN[A,0] = s[0]*f[1]*f[2]/8; dN[A,1] = s[1]*f[0]*f[2]/8; dN[A,2] = s[2]*f[0]*f[1]/8
      J = h/2; dNdx = dN / J; detJ = J**3
      B = np.zeros((6,24))
      for A in range(8):
        gx,gy,gz = dNdx[A]
        B[0,3*A]=gx; B[1,3*A+1]=gy; B[2,3*A+2]=gz
        B[3,3*A]=gy; B[3,3*A+1]=gx
        B[4,3*A]=gz; B[4,3*A+2]=gx
        B[5,3*A+1]=gz; B[5,3*A+2]=gy
      Ke += B.T@D@B*detJ
N1 = n+1
nid = lambda i,j,k: (k*N1+j)*N1+i
I,J,K = np.meshgrid(np.arange(n),np.arange(n),np.arange(n),indexing='ij')
I=I.ravel();J=J.ravel();K=K.ravel()
off = [(0,0,0),(1,0,0),(1,1,0),(0,1,0),(0,0,1),(1,0,1),(1,1,1),(0,1,1)]
conn = np.stack([nid(I+o[0],J+o[1],K+o[2]) for o in off],1)
dofs = (3*conn[:,:,None]+np.arange(3)).reshape(-1,24)
rows = np.repeat(dofs,24,axis=1).ravel(); cols = np.tile(dofs,(1,24)).ravel()
vals = np.tile(Ke.ravel(), conn.shape[0])
ndof = 3*N1**3
A = sp.csr_matrix((vals,(rows,cols)),shape=(ndof,ndof))
xs = np.arange(N1)*h
X = np.stack(np.meshgrid(xs,xs,xs,indexing='ij'),-1)  # i,j,k
# node id ordering: (k*N1+j)*N1+i -> coords
coords = np.zeros((N1**3,3))
ii,jj,kk = np.meshgrid(np.arange(N1),np.arange(N1),np.arange(N1),indexing='ij')
coords[nid(ii,jj,kk).ravel()] = np.stack([ii.ravel()*h,jj.ravel()*h,kk.ravel()*h],1)
fixed_nodes = np.where(coords[:,2]==0)[0]
free = np.ones(ndof,bool); free[(3*fixed_nodes[:,None]+np.arange(3)).ravel()] = False
# identity rows/cols for constrained
Fm = sp.diags(free.astype(float))
A = Fm@A@Fm + sp.diags((~free).astype(float))
A = A.tocsr()
b = np.zeros(ndof); top = np.where(np.isclose(coords[:,2],1.0))[0]; b[3*top+2] = 1.0; b[3*top] = 0.3
b *= free
# block jacobi
nn = N1**3
Dblk = np.zeros((nn,3,3))
Acoo = A.tocoo()
m = (Acoo.row//3)==(Acoo.col//3)
Dblk[Acoo.row[m]//3, Acoo.row[m]%3, Acoo.col[m]%3] = Acoo.data[m]
Dinv = np.linalg.inv(Dblk)
def bj(r): return np.einsum('nij,nj->ni',Dinv,r.reshape(-1,3)).ravel()
def pcg(M, tol=1e-7, maxit=20000):
  x = np.zeros(ndof); r = b.copy(); z = M(r); p = z.copy(); rz = r@z; bb = b@b
  for it in range(1,maxit+1):
    q = A@p; al = rz/(p@q); x += al*p; r -= al*q
    if r@r <= tol*tol*bb: return it
    z = M(r); rzn = r@z; p = z + rzn/rz*p; rz = rzn
  return maxit
t=time.time(); print(f"n={n} nu={nu} ndof={ndof} block-Jacobi: {pcg(bj)} its ({time.time()-t:.1f}s)")
LINEAR = os.environ.get('LINEAR') == '1'  # 12 modes per box: every linear field, not only rigid
NM = 12 if LINEAR else 6
for k in ks:
  box = np.minimum((coords/ (1.0/k)).astype(int), k-1)
  sid = (box[:,2]*k+box[:,1])*k+box[:,0]
  nsub = k**3
  cols_=[]; Zr=[]; Zc=[]; Zv=[]
  for s in range(nsub):
    nodes = np.where(sid==s)[0]
    c = coords[nodes].mean(0); d = coords[nodes]-c
    modes = []
    for t_ in range(3):
      v = np.zeros((len(nodes),3)); v[:,t_]=1; modes.append(v)
    # rotations
    modes.append(np.stack([-d[:,1],d[:,0],0*d[:,0]],1))
    modes.append(np.stack([0*d[:,0],-d[:,2],d[:,1]],1))
    modes.append(np.stack([d[:,2],0*d[:,0],-d[:,0]],1))
    if LINEAR:  # the 6 symmetric linear fields (strains): with the rotations, all 9 gradients
      for (i_, j_) in [(0,0),(1,1),(2,2),(0,1),(1,2),(0,2)]:
        v = np.zeros((len(nodes),3)); v[:,i_] += d[:,j_]
        if i_ != j_: v[:,j_] += d[:,i_]
        modes.append(v)
    for mm,v in enumerate(modes):
      col = NM*s+mm
      dd = (3*nodes[:,None]+np.arange(3)).ravel(); vv = v.ravel()*free[dd]
      Zr.append(dd); Zc.append(np.full(dd.size,col)); Zv.append(vv)
  Z = sp.csr_matrix((np.concatenate(Zv),(np.concatenate(Zr),np.concatenate(Zc))),shape=(ndof,NM*nsub))
  Ec = (Z.T@(A@Z)).toarray()
  # drop null columns
  keep = np.diag(Ec) > 1e-12*np.abs(np.diag(Ec)).max()
  Z = Z[:,keep]; Ec = Ec[np.ix_(keep,keep)]
  cf = sla.cho_factor(Ec)
  def tl(r): return bj(r) + Z@sla.cho_solve(cf, Z.T@r)
  # deflation-style (A-DEF2 / balancing): M = P^T BJ P + Z E^-1 Z^T  with P = I - A Z E^-1 Z^T
  AZ = (A@Z)
  def bal(r):
    y = sla.cho_solve(cf, Z.T@r); r1 = r - AZ@y
    z = bj(r1); y2 = sla.cho_solve(cf, AZ.T@z)
    return z - Z@y2 + Z@y
  t=time.time(); i1 = pcg(tl); t1=time.time()-t
  t=time.time(); i2 = pcg(bal); t2=time.time()-t
  print(f"  k={k} ({Z.shape[1]} coarse): additive two-level {i1} its ({t1:.1f}s), balancing {i2} its ({t2:.1f}s)")
