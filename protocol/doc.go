// Package protocol is a model of the mbarrier protocols of swigen's
// kernels: it steps every role of a CTA (or of a cluster's CTAs) through
// its barrier operations over a sequence of tiles and checks that the
// protocol holds, for sm_90a and sm_100a, without a GPU.
//
// # What drives it
//
// A Spec holds every number the rendered code's barrier operations use:
// init counts, ring depths, expect-tx bytes, the TMA boxes each load
// moves, the parity formula of each wait, and who arrives where (warps
// per release, cluster-wide releases, the pair's commit mask, the CLC
// readers). fromview.ProtocolSpec builds it from the same view the templates
// render (gen/view/protocol.go). The role programs here transcribe the
// templates' control flow (sm90a_kernel.cuh.tmpl, the kinds' partials,
// sm90a_overlap.cuh.tmpl, sm100a_kernel.cuh.tmpl, sm100_ptx.cuh.tmpl):
//
//   - sm_90a (sm90.go): the operand producer thread; the epilogue-operand
//     loader warps (de or the residual; bwd_dswiglu's also TMA-store the
//     results and drain the last slots); the two consumer warpgroups under
//     ping-pong (order barriers), cooperative or overlap (the previous
//     tile's epilogue in slices between k-blocks); setmaxnreg; a cluster's
//     multicast loads and cluster-wide stage releases.
//   - sm_100a (sm100.go): the TMA producer (with its drain before exit),
//     the MMA issuer (commits multicast to the pair), the epilogue loader,
//     the CLC scheduler (CTA 0 requests, responses land in every CTA, a
//     failed response ends every role's loop), the epilogue warpgroup
//     (TMEM accumulator stages, released at once by a pair CTA with no
//     rows of the tile); the CTA pair, whose loads complete on the
//     leader's barrier.
//
// # Events
//
// Each role is a program of operations: wait (try_wait.parity: passes
// once the barrier's phase parity differs from the one given), arrive,
// arrive.expect_tx, TMA load (writes buffers, completes tx on barriers,
// asynchronously), acquire/release of a buffer (operand stage, epilogue
// slot, TMEM accumulator, CLC response), generic-proxy write of a slot,
// TMA store (reads a slot until its bulk group completes), wait_group.read
// N, tcgen05.commit (arrives once the MMAs are done, asynchronously),
// try_cancel, setmaxnreg dec/inc, and the teardown barrier. A Policy
// decides which role or asynchronous completion moves next: round robin,
// random streams, and each role class, CTA or kind of asynchronous
// operation held back while anything else can move, so that every other
// role runs as far ahead as the protocol allows.
//
// # Checks
//
//   - arrivals: each arrival and expect-tx is tagged with the phase its
//     role means (its own counters, not the parity); it must land on that
//     phase, and each phase gets exactly the init count (none left
//     part-arrived at exit);
//   - tx: the bytes landing in a phase are meant for it and fill the
//     buffer it guards (StageBytes per CTA, the slot's loaded part, the
//     16-byte CLC response), independent of the expect-tx value;
//   - parity: a wait returns only on the phase it means; a parity that
//     aliases a phase two away (the barrier behind the role) or a phase
//     that completed twice before the waiter looked fails;
//   - deadlock: every wait's phase completes and every role terminates;
//     a deadlock reports each blocked role and what the GPU does: a
//     trapping wait fails the launch at the hang deadline, the sm_90a
//     consumers' waits give up (wrong results), setmaxnreg and
//     barrier.cluster hang;
//   - overwrite and read: a buffer generation is written only after its
//     readers read and released the last one, and read only once fully
//     written;
//   - exit: nothing asynchronous (a commit, a load, a store) is in flight
//     towards the CTAs when the last role finishes.
//
// The stream-K handshake between CTAs (streamk.go, RunStreamK) is a model
// of its own over a whole grid: each consumer part's partial store, flag
// release, the owner's acquire, reset and fixed-order sum, with CTAs
// launched in order a few at a time and two launches on one workspace;
// TestStreamKSeededBugs shows it catches a missing release, a release
// before the store, an owner that does not wait, flags left set, and
// partials added in arrival order.
//
// Scenarios (Scenarios) cover one tile and one k-block, ragged M, N and
// K with edge sub-tiles skipped, several tiles per CTA with every ring
// wrapping, many k-blocks in one tile, M = N = K = 1 (a 2-CTA peer or a
// cluster peer with no rows), idle clusters, and for CLC: the first
// request failing, one cluster stealing all others (more responses than
// the ring holds), stealing a cluster whose odd CTA's tile lies past the
// last, and the last cluster alone. The grouped scheduler's scenarios
// (both architectures) are expert row counts: empty and one-token experts,
// sizes around TileM, idle CTAs, whole and ragged sub-tiles in one ring,
// and a run of ragged ones only (whose slots the sm_100a backward's de
// loader refills).
//
// # What it reproduces from the H200
//
// Nothing here has run on a GPU in this form; these are the observations
// on the H200 (docs/PERFORMANCE.md) that the model reproduces, each in
// TestProtocolH200Observations or TestProtocolSeededBugs:
//
//   - the ring-phase race of the shared epilogue ring
//     (#epilogue-shared-ring, commit c202333, reverted in 26b535f): with
//     both ping-pong consumers on one ring of 2 slots a consumer waits on
//     a slot barrier two phases ahead and the parity wait returns at once.
//     The H200 trapped at bwd_dswiglu 1536x264x2056, the first ragged
//     shape with 2+ tiles per CTA; the model (SM90.SharedEpiRing) finds
//     the alias on the CTAs of that launch that run two tiles, not on
//     those with one, and not with private rings;
//   - the ping-pong order barriers: without them consumer 1 waits on a
//     full barrier two phases ahead (the view's reason for OrderWait);
//   - setmaxnreg (#trap-caps-registers): 32/240 never returned from
//     setmaxnreg.inc (the pool is 3 x 168 per thread row); 24/240 and
//     40/232 run;
//   - the hang probe (#probes) traps on every sm_90a config: its blocked
//     wait is a trapping one, and the consumers' non-trapping waits are
//     why a stalled consumer gives wrong results rather than a fault;
//   - every catalog kernel verifies on the H200, and the model finds no
//     violation in any sm_90a catalog or tuning-space config.
//
// The sm_100a kernels have never run; for them the model is the only
// dynamic check of the barrier protocol.
//
// # Limits
//
// The model explores schedules by policy, not exhaustively: a race that
// needs an interleaving no policy produces can pass. A warpgroup is one
// role (its named barriers and the 32 lanes' arrivals are counted, not
// interleaved). wgmma and tcgen05.ld completion are abstracted: a stage is
// held from the consumer's full wait to its release, which the templates
// issue after wgmma.wait_group / tcgen05.wait::ld. Memory ordering and
// proxy fences (fence.proxy.async, the acquire/release scopes) are not
// modeled, nor TMEM allocation and CTA co-residency (issue 22's D1), nor
// timing. TMA boxes past the tensor edge count their full bytes, as the
// hardware does. CLC responses are inputs of the scenario. The role
// programs are transcribed by hand: the adapter follows the views'
// numbers, but a change to a template's control flow must be mirrored
// here.
//
// A GPU cross-check is future work: the trace probe records each sm_90a
// consumer's tiles in order with its order-barrier and operand waits;
// comparing that per-tile order (and, on a B200, a CLC trace) with the
// model's role programs for the same launch would tie the transcription
// to what runs.
package protocol
