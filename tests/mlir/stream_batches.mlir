// RUN: shardc %s --emit=ir
// Functions of more ops than the reader imports at a time (STREAM_BATCH
// in src/mlir/read.c: 32), one of exactly two batches, one ending with a
// part of one: every op read and imported in order.
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %v0 = stablehlo.exponential %x : (tensor<8xf32>) -> tensor<8xf32>
    %v1 = stablehlo.add %v0, %v0 : tensor<8xf32>
    %v2 = stablehlo.add %v1, %v1 : tensor<8xf32>
    %v3 = stablehlo.add %v2, %v2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v4 = stablehlo.add %v3, %v3 : tensor<8xf32>
    %v5 = stablehlo.add %v4, %v4 : tensor<8xf32>
    %v6 = stablehlo.add %v5, %v5 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v7 = stablehlo.add %v6, %v6 : tensor<8xf32>
    %v8 = stablehlo.add %v7, %v7 : tensor<8xf32>
    %v9 = stablehlo.add %v8, %v8 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v10 = stablehlo.add %v9, %v9 : tensor<8xf32>
    %v11 = stablehlo.add %v10, %v10 : tensor<8xf32>
    %v12 = stablehlo.add %v11, %v11 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v13 = stablehlo.add %v12, %v12 : tensor<8xf32>
    %v14 = stablehlo.add %v13, %v13 : tensor<8xf32>
    %v15 = stablehlo.add %v14, %v14 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v16 = stablehlo.add %v15, %v15 : tensor<8xf32>
    %v17 = stablehlo.add %v16, %v16 : tensor<8xf32>
    %v18 = stablehlo.add %v17, %v17 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v19 = stablehlo.add %v18, %v18 : tensor<8xf32>
    %v20 = stablehlo.add %v19, %v19 : tensor<8xf32>
    %v21 = stablehlo.add %v20, %v20 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v22 = stablehlo.add %v21, %v21 : tensor<8xf32>
    %v23 = stablehlo.add %v22, %v22 : tensor<8xf32>
    %v24 = stablehlo.add %v23, %v23 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v25 = stablehlo.add %v24, %v24 : tensor<8xf32>
    %v26 = stablehlo.add %v25, %v25 : tensor<8xf32>
    %v27 = stablehlo.add %v26, %v26 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v28 = stablehlo.add %v27, %v27 : tensor<8xf32>
    %v29 = stablehlo.add %v28, %v28 : tensor<8xf32>
    %v30 = stablehlo.add %v29, %v29 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v31 = stablehlo.add %v30, %v30 : tensor<8xf32>
    %v32 = stablehlo.add %v31, %v31 : tensor<8xf32>
    %v33 = stablehlo.add %v32, %v32 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v34 = stablehlo.add %v33, %v33 : tensor<8xf32>
    %v35 = stablehlo.add %v34, %v34 : tensor<8xf32>
    %v36 = stablehlo.add %v35, %v35 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v37 = stablehlo.add %v36, %v36 : tensor<8xf32>
    %v38 = stablehlo.add %v37, %v37 : tensor<8xf32>
    %v39 = stablehlo.add %v38, %v38 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v40 = stablehlo.add %v39, %v39 : tensor<8xf32>
    %v41 = stablehlo.add %v40, %v40 : tensor<8xf32>
    %v42 = stablehlo.add %v41, %v41 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v43 = stablehlo.add %v42, %v42 : tensor<8xf32>
    %v44 = stablehlo.add %v43, %v43 : tensor<8xf32>
    %v45 = stablehlo.add %v44, %v44 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v46 = stablehlo.add %v45, %v45 : tensor<8xf32>
    %v47 = stablehlo.add %v46, %v46 : tensor<8xf32>
    %v48 = stablehlo.add %v47, %v47 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v49 = stablehlo.add %v48, %v48 : tensor<8xf32>
    %v50 = stablehlo.add %v49, %v49 : tensor<8xf32>
    %v51 = stablehlo.add %v50, %v50 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v52 = stablehlo.add %v51, %v51 : tensor<8xf32>
    %v53 = stablehlo.add %v52, %v52 : tensor<8xf32>
    %v54 = stablehlo.add %v53, %v53 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v55 = stablehlo.add %v54, %v54 : tensor<8xf32>
    %v56 = stablehlo.add %v55, %v55 : tensor<8xf32>
    %v57 = stablehlo.add %v56, %v56 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v58 = stablehlo.add %v57, %v57 : tensor<8xf32>
    %v59 = stablehlo.add %v58, %v58 : tensor<8xf32>
    %v60 = stablehlo.add %v59, %v59 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v61 = stablehlo.add %v60, %v60 : tensor<8xf32>
    %v62 = stablehlo.add %v61, %v61 : tensor<8xf32>
    %v63 = stablehlo.add %v62, %v62 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v64 = stablehlo.add %v63, %v63 : tensor<8xf32>
    %v65 = stablehlo.add %v64, %v64 : tensor<8xf32>
    %v66 = stablehlo.add %v65, %v65 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v67 = stablehlo.add %v66, %v66 : tensor<8xf32>
    %v68 = stablehlo.add %v67, %v67 : tensor<8xf32>
    %v69 = stablehlo.add %v68, %v68 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    func.return %v69 : tensor<8xf32>
  }
  func.func @g(%x: tensor<8xf32>) -> tensor<8xf32> {
    %v0 = stablehlo.exponential %x : (tensor<8xf32>) -> tensor<8xf32>
    %v1 = stablehlo.add %v0, %v0 : tensor<8xf32>
    %v2 = stablehlo.add %v1, %v1 : tensor<8xf32>
    %v3 = stablehlo.add %v2, %v2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v4 = stablehlo.add %v3, %v3 : tensor<8xf32>
    %v5 = stablehlo.add %v4, %v4 : tensor<8xf32>
    %v6 = stablehlo.add %v5, %v5 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v7 = stablehlo.add %v6, %v6 : tensor<8xf32>
    %v8 = stablehlo.add %v7, %v7 : tensor<8xf32>
    %v9 = stablehlo.add %v8, %v8 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v10 = stablehlo.add %v9, %v9 : tensor<8xf32>
    %v11 = stablehlo.add %v10, %v10 : tensor<8xf32>
    %v12 = stablehlo.add %v11, %v11 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v13 = stablehlo.add %v12, %v12 : tensor<8xf32>
    %v14 = stablehlo.add %v13, %v13 : tensor<8xf32>
    %v15 = stablehlo.add %v14, %v14 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v16 = stablehlo.add %v15, %v15 : tensor<8xf32>
    %v17 = stablehlo.add %v16, %v16 : tensor<8xf32>
    %v18 = stablehlo.add %v17, %v17 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v19 = stablehlo.add %v18, %v18 : tensor<8xf32>
    %v20 = stablehlo.add %v19, %v19 : tensor<8xf32>
    %v21 = stablehlo.add %v20, %v20 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v22 = stablehlo.add %v21, %v21 : tensor<8xf32>
    %v23 = stablehlo.add %v22, %v22 : tensor<8xf32>
    %v24 = stablehlo.add %v23, %v23 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v25 = stablehlo.add %v24, %v24 : tensor<8xf32>
    %v26 = stablehlo.add %v25, %v25 : tensor<8xf32>
    %v27 = stablehlo.add %v26, %v26 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v28 = stablehlo.add %v27, %v27 : tensor<8xf32>
    %v29 = stablehlo.add %v28, %v28 : tensor<8xf32>
    %v30 = stablehlo.add %v29, %v29 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v31 = stablehlo.add %v30, %v30 : tensor<8xf32>
    %v32 = stablehlo.add %v31, %v31 : tensor<8xf32>
    %v33 = stablehlo.add %v32, %v32 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v34 = stablehlo.add %v33, %v33 : tensor<8xf32>
    %v35 = stablehlo.add %v34, %v34 : tensor<8xf32>
    %v36 = stablehlo.add %v35, %v35 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v37 = stablehlo.add %v36, %v36 : tensor<8xf32>
    %v38 = stablehlo.add %v37, %v37 : tensor<8xf32>
    %v39 = stablehlo.add %v38, %v38 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v40 = stablehlo.add %v39, %v39 : tensor<8xf32>
    %v41 = stablehlo.add %v40, %v40 : tensor<8xf32>
    %v42 = stablehlo.add %v41, %v41 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v43 = stablehlo.add %v42, %v42 : tensor<8xf32>
    %v44 = stablehlo.add %v43, %v43 : tensor<8xf32>
    %v45 = stablehlo.add %v44, %v44 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v46 = stablehlo.add %v45, %v45 : tensor<8xf32>
    %v47 = stablehlo.add %v46, %v46 : tensor<8xf32>
    %v48 = stablehlo.add %v47, %v47 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v49 = stablehlo.add %v48, %v48 : tensor<8xf32>
    %v50 = stablehlo.add %v49, %v49 : tensor<8xf32>
    %v51 = stablehlo.add %v50, %v50 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v52 = stablehlo.add %v51, %v51 : tensor<8xf32>
    %v53 = stablehlo.add %v52, %v52 : tensor<8xf32>
    %v54 = stablehlo.add %v53, %v53 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v55 = stablehlo.add %v54, %v54 : tensor<8xf32>
    %v56 = stablehlo.add %v55, %v55 : tensor<8xf32>
    %v57 = stablehlo.add %v56, %v56 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v58 = stablehlo.add %v57, %v57 : tensor<8xf32>
    %v59 = stablehlo.add %v58, %v58 : tensor<8xf32>
    %v60 = stablehlo.add %v59, %v59 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : tensor<8xf32>
    %v61 = stablehlo.add %v60, %v60 : tensor<8xf32>
    %v62 = stablehlo.add %v61, %v61 : tensor<8xf32>
    func.return %v62 : tensor<8xf32>
  }
}
