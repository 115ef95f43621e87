/* Probe behind docs/benchmarks.md ("Why BSR"): on the hex8 block pattern of Kiran's cube
 * (n x n x n elements, 3 DOFs per node), times cuSPARSE SpMV with the tangent stored as CSR
 * (ALG1, ALG2) and as BSR with row- and column-major 3 x 3 blocks (and the legacy bsrmv), checks
 * that repeated products give the same bits, and times a colour-by-colour scatter of constant
 * element blocks (no element arithmetic) into either layout, per slab of element layers too.
 * A one-off measurement tool, not part of the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 probe_spmv_layout.cu -o probe -lcusparse && ./probe 115
 * Output on the H200 (2026-11-21): h200_probe_spmv_layout_2026-11-21.log. */
// Layout micro-benchmark: CSR vs BSR SpMV (cuSPARSE), colour scatter cost per layout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <cusparse.h>
#define CK(x) do{cudaError_t e_=(x); if(e_!=cudaSuccess){printf("CUDA %s line %d: %s\n",#x,__LINE__,cudaGetErrorString(e_)); exit(1);} }while(0)
#define SK(x) do{cusparseStatus_t s_=(x); if(s_!=CUSPARSE_STATUS_SUCCESS){printf("cusparse %s line %d: %d\n",#x,__LINE__,(int)s_); exit(1);} }while(0)

__global__ void k_scatter_csr(int n, const int* el, const int* conn, const int* pos, const int* row_ptr, double* val) {
  long t = (long)blockIdx.x*blockDim.x+threadIdx.x; if (t >= (long)n*64) return;
  int e = el[t/64], p = t%64, A = p/8, B = p%8; int na = conn[e*8+A]; int ps = pos[e*64+p];
  for (int i=0;i<3;i++){ double* v = val + row_ptr[na*3+i] + ps*3; for(int j=0;j<3;j++) v[j] += 1.0+i+j; }
}
__global__ void k_scatter_bsr(int n, const int* el, const int* conn, const int* pos, const int* brow, double* val) {
  long t = (long)blockIdx.x*blockDim.x+threadIdx.x; if (t >= (long)n*64) return;
  int e = el[t/64], p = t%64, A = p/8; int na = conn[e*8+A]; int ps = pos[e*64+p];
  double* v = val + ((long)brow[na]+ps)*9; for (int k=0;k<9;k++) v[k] += 1.0+k/3+k%3;
}
// 9 threads per pair: coalesced within each 72 B block
__global__ void k_scatter_bsr9(int n, const int* el, const int* conn, const int* pos, const int* brow, double* val) {
  long t = (long)blockIdx.x*blockDim.x+threadIdx.x; if (t >= (long)n*576) return;
  long pr = t/9; int k = t%9; int e = el[pr/64], p = pr%64, A = p/8; int na = conn[e*8+A]; int ps = pos[e*64+p];
  val[((long)brow[na]+ps)*9+k] += 1.0+k/3+k%3;
}
int main(int argc, char** argv) {
  int n = argc>1? atoi(argv[1]) : 115, m = n+1, nn = m*m*m, ne = n*n*n;
  auto nid=[&](int i,int j,int k){return (k*m+j)*m+i;};
  std::vector<int> brow(nn+1), bcol; brow[0]=0;
  for(int k=0;k<m;k++)for(int j=0;j<m;j++)for(int i=0;i<m;i++){
    for(int c=-1;c<=1;c++)for(int b=-1;b<=1;b++)for(int a=-1;a<=1;a++){int I=i+a,J=j+b,K=k+c; if(I<0||J<0||K<0||I>=m||J>=m||K>=m)continue; bcol.push_back(nid(I,J,K));}
    brow[nid(i,j,k)+1]=bcol.size();}
  long nb = bcol.size(), nnz = nb*9; int nd = nn*3;
  std::vector<int> row_ptr(nd+1), col(nnz); 
  for(int a=0;a<nn;a++){ int nbr=brow[a+1]-brow[a]; for(int i=0;i<3;i++){ int r=a*3+i; long st=(long)brow[a]*9+(long)i*nbr*3; row_ptr[r]=st; for(int q=0;q<nbr;q++)for(int j=0;j<3;j++) col[st+q*3+j]=bcol[brow[a]+q]*3+j;}}
  row_ptr[nd]=nnz;
  std::vector<int> conn(ne*8), pos(ne*64), el; std::vector<int> cptr(9,0);
  for(int k=0;k<n;k++)for(int j=0;j<n;j++)for(int i=0;i<n;i++){int e=(k*n+j)*n+i; int nd8[8]={nid(i,j,k),nid(i+1,j,k),nid(i+1,j+1,k),nid(i,j+1,k),nid(i,j,k+1),nid(i+1,j,k+1),nid(i+1,j+1,k+1),nid(i,j+1,k+1)};
    for(int A=0;A<8;A++){conn[e*8+A]=nd8[A];} for(int A=0;A<8;A++)for(int B=0;B<8;B++){int a=nd8[A]; int r=-1; for(int q=brow[a];q<brow[a+1];q++) if(bcol[q]==nd8[B]) r=q-brow[a]; pos[e*64+A*8+B]=r;}}
  for(int c=0;c<8;c++){ cptr[c]=el.size(); for(int k=0;k<n;k++)for(int j=0;j<n;j++)for(int i=0;i<n;i++) if((i%2)+2*(j%2)+4*(k%2)==c) el.push_back((k*n+j)*n+i);} cptr[8]=el.size();
  printf("n=%d nodes=%d dofs=%d nnz=%ld blocks=%ld elems=%d\n", n, nn, nd, nnz, nb, ne);
  int *d_rp,*d_col,*d_brow,*d_bcol,*d_conn,*d_pos,*d_el; double *d_val,*d_bval,*d_x,*d_y,*d_y2; 
  CK(cudaMalloc(&d_rp,(nd+1)*4)); CK(cudaMalloc(&d_col,nnz*4)); CK(cudaMalloc(&d_brow,(nn+1)*4)); CK(cudaMalloc(&d_bcol,nb*4));
  CK(cudaMalloc(&d_conn,ne*32)); CK(cudaMalloc(&d_pos,(long)ne*256)); CK(cudaMalloc(&d_el,ne*4));
  CK(cudaMalloc(&d_val,nnz*8)); CK(cudaMalloc(&d_bval,nnz*8)); CK(cudaMalloc(&d_x,nd*8)); CK(cudaMalloc(&d_y,nd*8)); CK(cudaMalloc(&d_y2,nd*8));
  CK(cudaMemcpy(d_rp,row_ptr.data(),(nd+1)*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_col,col.data(),nnz*4,cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_brow,brow.data(),(nn+1)*4,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_bcol,bcol.data(),nb*4,cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_conn,conn.data(),ne*32,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_pos,pos.data(),(long)ne*256,cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_el,el.data(),ne*4,cudaMemcpyHostToDevice));
  std::vector<double> hx(nd); for(int i=0;i<nd;i++) hx[i]=1.0+0.001*(i%977); CK(cudaMemcpy(d_x,hx.data(),nd*8,cudaMemcpyHostToDevice));
  cudaEvent_t t0,t1; cudaEventCreate(&t0); cudaEventCreate(&t1); float ms;
  // copy bandwidth
  { void* buf; size_t half=nnz*8; CK(cudaMalloc(&buf,2*half)); float best=1e9; for(int r=0;r<6;r++){cudaEventRecord(t0); cudaMemcpyAsync((char*)buf+half,buf,half,cudaMemcpyDeviceToDevice); cudaEventRecord(t1); cudaEventSynchronize(t1); cudaEventElapsedTime(&ms,t0,t1); if(r&&ms<best)best=ms;} printf("copy bw %.1f GB/s\n", 2.0*half/best/1e6); cudaFree(buf);
    best=1e9; for(int r=0;r<4;r++){cudaEventRecord(t0); cudaMemsetAsync(d_val,0,nnz*8); cudaEventRecord(t1); cudaEventSynchronize(t1); cudaEventElapsedTime(&ms,t0,t1); if(r&&ms<best)best=ms;} printf("memset values %.3f ms (%.1f GB/s)\n",best,nnz*8/best/1e6);}
  // scatter
  auto scat=[&](int kind){ float best=1e9; for(int r=0;r<4;r++){ cudaEventRecord(t0); cudaMemsetAsync(kind?d_bval:d_val,0,nnz*8);
      for(int c=0;c<8;c++){int ne_c=cptr[c+1]-cptr[c]; const int* ec=d_el+cptr[c];
        if(kind==0) k_scatter_csr<<<(ne_c*64+255)/256,256>>>(ne_c,ec,d_conn,d_pos,d_rp,d_val);
        else if(kind==1) k_scatter_bsr<<<(ne_c*64+255)/256,256>>>(ne_c,ec,d_conn,d_pos,d_brow,d_bval);
        else k_scatter_bsr9<<<(int)(((long)ne_c*576+255)/256),256>>>(ne_c,ec,d_conn,d_pos,d_brow,d_bval);}
      cudaEventRecord(t1); cudaEventSynchronize(t1); CK(cudaGetLastError()); cudaEventElapsedTime(&ms,t0,t1); if(r&&ms<best)best=ms;} return best;};
  printf("scatter CSR (memset + 8 colours): %.3f ms\n", scat(0));
  printf("scatter BSR thread/pair: %.3f ms\n", scat(1));
  printf("scatter BSR 9 threads/pair: %.3f ms\n", scat(2));

  for (int L : {1, 2, 4, 8, 16}) { // slab-ordered colour passes: colour c of slab s, slabs in order
    std::vector<int> sel; std::vector<int> ptr(1,0);
    for (int s0=0; s0<n; s0+=L) for(int c=0;c<8;c++){ for(int k=s0;k<s0+L&&k<n;k++) if(k%2==c/4) for(int j=0;j<n;j++) if(j%2==(c/2)%2) for(int i=c%2;i<n;i+=2) sel.push_back((k*n+j)*n+i); ptr.push_back(sel.size()); }
    int *d_sel; CK(cudaMalloc(&d_sel, sel.size()*4)); CK(cudaMemcpy(d_sel, sel.data(), sel.size()*4, cudaMemcpyHostToDevice));
    for (int kind=0; kind<2; kind++) { float best=1e9; for(int r=0;r<3;r++){ cudaEventRecord(t0); cudaMemsetAsync(kind?d_bval:d_val,0,nnz*8);
      for (size_t g=0; g+1<ptr.size(); g++){ int ne_c=ptr[g+1]-ptr[g]; if(!ne_c) continue; const int* ec=d_sel+ptr[g];
        if(kind==0) k_scatter_csr<<<(ne_c*64+255)/256,256>>>(ne_c,ec,d_conn,d_pos,d_rp,d_val);
        else k_scatter_bsr9<<<(int)(((long)ne_c*576+255)/256),256>>>(ne_c,ec,d_conn,d_pos,d_brow,d_bval);}
      cudaEventRecord(t1); cudaEventSynchronize(t1); CK(cudaGetLastError()); cudaEventElapsedTime(&ms,t0,t1); if(r&&ms<best)best=ms;}
      printf("slab L=%2d (%zu launches) %s: %.3f ms\n", L, ptr.size()-1, kind?"BSR 9/pair":"CSR thread/pair", best); }
    cudaFree(d_sel); }
  // check same matrix
  { std::vector<double> a(nnz), b(nnz); scat(0); scat(1); cudaMemcpy(a.data(),d_val,nnz*8,cudaMemcpyDeviceToHost); cudaMemcpy(b.data(),d_bval,nnz*8,cudaMemcpyDeviceToHost);
    long bad=0; for(int r=0;r<nd;r++){int a_=r/3,i=r%3,nbr=brow[a_+1]-brow[a_]; for(int q=0;q<nbr;q++)for(int j=0;j<3;j++){ double x1=a[row_ptr[r]+q*3+j], x2=b[((long)brow[a_]+q)*9+i*3+j]; if(x1!=x2) bad++; }} printf("csr vs bsr scatter mismatches: %ld\n",bad);}
  // SpMV
  cusparseHandle_t h; SK(cusparseCreate(&h)); cusparseDnVecDescr_t vx,vy; SK(cusparseCreateDnVec(&vx,nd,d_x,CUDA_R_64F)); SK(cusparseCreateDnVec(&vy,nd,d_y,CUDA_R_64F));
  double one=1, zero=0; double floor_csr = 12.0*nnz+20.0*nd, floor_bsr = 8.0*nnz + 4.0*nb + 4.0*nn + 16.0*nd;
  auto run=[&](cusparseSpMatDescr_t A, cusparseSpMVAlg_t alg, const char* name, double fb){
    size_t bs=0; cusparseStatus_t s=cusparseSpMV_bufferSize(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,A,vx,&zero,vy,CUDA_R_64F,alg,&bs); if(s){printf("%s: bufferSize status %d\n",name,(int)s);return;}
    void* buf=0; if(bs) CK(cudaMalloc(&buf,bs));
    s=cusparseSpMV_preprocess(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,A,vx,&zero,vy,CUDA_R_64F,alg,buf); if(s) printf("%s: preprocess status %d\n",name,(int)s);
    s=cusparseSpMV(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,A,vx,&zero,vy,CUDA_R_64F,alg,buf); if(s){printf("%s: spmv status %d\n",name,(int)s); return;}
    cudaDeviceSynchronize(); cudaMemcpy(d_y2,d_y,nd*8,cudaMemcpyDeviceToDevice);
    cudaEventRecord(t0); for(int r=0;r<20;r++) cusparseSpMV(h,CUSPARSE_OPERATION_NON_TRANSPOSE,&one,A,vx,&zero,vy,CUDA_R_64F,alg,buf); cudaEventRecord(t1); cudaEventSynchronize(t1); cudaEventElapsedTime(&ms,t0,t1);
    std::vector<double> y1(nd), y2(nd); cudaMemcpy(y1.data(),d_y,nd*8,cudaMemcpyDeviceToHost); cudaMemcpy(y2.data(),d_y2,nd*8,cudaMemcpyDeviceToHost);
    static std::vector<double> ref; double md=0; if(ref.empty()) ref=y1; else for(int i=0;i<nd;i++){double d=fabs(ref[i]-y1[i])/(fabs(ref[i])+1e-300); if(d>md)md=d;}
    printf("%-28s %.3f ms  bytes %.2f GB  %.0f GB/s  bit-identical %s  maxrel vs first %.1e (buf %zu)\n", name, ms/20, fb/1e9, fb/(ms/20)/1e6, memcmp(y1.data(),y2.data(),nd*8)?"NO":"yes", md, bs);
    if(buf) cudaFree(buf);};
  cusparseSpMatDescr_t Acsr, Abr, Abc;
  SK(cusparseCreateCsr(&Acsr,nd,nd,nnz,d_rp,d_col,d_val,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_BASE_ZERO,CUDA_R_64F));
  run(Acsr,CUSPARSE_SPMV_CSR_ALG2,"CSR ALG2",floor_csr); run(Acsr,CUSPARSE_SPMV_CSR_ALG1,"CSR ALG1",floor_csr);
  SK(cusparseCreateBsr(&Abr,nn,nn,nb,3,3,d_brow,d_bcol,d_bval,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_BASE_ZERO,CUDA_R_64F,CUSPARSE_ORDER_ROW));
  run(Abr,CUSPARSE_SPMV_BSR_ALG1,"BSR row-major ALG1",floor_bsr); run(Abr,CUSPARSE_SPMV_ALG_DEFAULT,"BSR row-major DEFAULT",floor_bsr);
  SK(cusparseCreateBsr(&Abc,nn,nn,nb,3,3,d_brow,d_bcol,d_bval,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_32I,CUSPARSE_INDEX_BASE_ZERO,CUDA_R_64F,CUSPARSE_ORDER_COL));
  run(Abc,CUSPARSE_SPMV_BSR_ALG1,"BSR col-major ALG1 (values transposed: result differs)",floor_bsr);
  // legacy bsrmv
  { cusparseMatDescr_t d; cusparseCreateMatDescr(&d); cudaEventRecord(t0); cusparseStatus_t s=CUSPARSE_STATUS_SUCCESS; for(int r=0;r<20;r++) s=cusparseDbsrmv(h,CUSPARSE_DIRECTION_ROW,CUSPARSE_OPERATION_NON_TRANSPOSE,nn,nn,nb,&one,d,d_bval,d_brow,d_bcol,3,d_x,&zero,d_y); cudaEventRecord(t1); cudaEventSynchronize(t1); cudaEventElapsedTime(&ms,t0,t1);
    printf("legacy Dbsrmv row: status %d  %.3f ms %.0f GB/s\n",(int)s,ms/20,floor_bsr/(ms/20)/1e6);}
  return 0;
}
