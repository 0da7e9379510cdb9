/* The sim layer without a server, in C (ffi/include/cohort.h; docs/EMBEDDING.md, "The sim
 * layer (your own transport)"): what an engine with its own networking, or its tools, does.
 *
 * 1. Loads a scenario file by path (a bug report written by `cohort replay --scenario` loads
 *    the same way) and steps it one tick at a time although its turn is longer, printing
 *    `tick N hash HEX` after each.
 * 2. Exports the world's snapshot and loads it into a second world made from the same file:
 *    the two hash alike. A snapshot with a turn that contradicts its tick is refused.
 * 3. Encodes a bundle of its own (one order for a unit of player 0) and runs it on both
 *    worlds: the same hash, printed `turn N hash HEX`.
 * 4. Answers a SnapshotRequest for that turn: its tick hashes and the snapshot after it,
 *    encoded as the Snapshot frames to write on the stream.
 *
 * Build (from the repository's root, after `cargo build --release -p cohort-ffi`):
 *   cc -std=c11 -Wall -Wextra -I ffi/include docs/examples/cohort_world.c \
 *      -L target/release -lcohort_ffi -Wl,-rpath,$PWD/target/release -o cohort_world
 * Run:
 *   ./cohort_world scenarios/group_move.toml [TICKS]
 * Exit status: 0 when every check held, 1 when one did not, 2 on a failing call.
 */
#include "cohort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ok(CohortStatus s, const char *what) {
    if (s == COHORT_STATUS_OK) {
        return 1;
    }
    char message[512];
    size_t len = cohort_last_error((uint8_t *)message, sizeof message);
    if (len > sizeof message) {
        len = sizeof message;
    }
    fprintf(stderr, "%s: status %d: %.*s\n", what, (int)s, (int)len, message);
    return 0;
}

static void hex(const uint8_t *bytes, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = 0;
}

/* The bytes a call writes into a buffer it sizes itself: asked first, then written. */
typedef CohortStatus (*Sized)(void *ctx, uint8_t *buf, size_t cap, size_t *len);

static uint8_t *sized(Sized f, void *ctx, size_t *len, const char *what) {
    CohortStatus s = f(ctx, NULL, 0, len);
    if (s != COHORT_STATUS_BUFFER_TOO_SMALL && !ok(s, what)) {
        return NULL;
    }
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf != NULL && !ok(f(ctx, buf, *len, len), what)) {
        free(buf);
        return NULL;
    }
    return buf;
}

static CohortStatus snapshot_of(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return cohort_world_snapshot(*(CohortHandle *)ctx, buf, cap, len);
}

typedef struct {
    uint64_t turn;
    const CohortOrder *order;
    const uint8_t *player;
} BundleArgs;

static CohortStatus bundle_of(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    BundleArgs *a = ctx;
    return cohort_encode_bundle(a->turn, a->order, a->player, 1, buf, cap, len);
}

typedef struct {
    uint64_t turn;
    const uint8_t *tick_hashes;
    size_t tick_hash_count;
    const uint8_t *end;
    size_t end_len;
} EvidenceArgs;

static CohortStatus evidence_of(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    EvidenceArgs *a = ctx;
    return cohort_encode_evidence(a->turn, a->tick_hashes, a->tick_hash_count, NULL, 0, a->end,
                                  a->end_len, buf, cap, len);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCENARIO.toml [TICKS]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    uint32_t ticks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 10;
    CohortHandle a = 0, b = 0;
    if (!ok(cohort_world_from_scenario((const uint8_t *)path, strlen(path), NULL, 0, &a),
            "scenario") ||
        !ok(cohort_world_from_scenario((const uint8_t *)path, strlen(path), NULL, 0, &b),
            "scenario")) {
        return 2;
    }
    int status = 0;
    uint8_t hash[COHORT_HASH_BYTES], other[COHORT_HASH_BYTES];
    char h[2 * COHORT_HASH_BYTES + 1];
    CohortWorldInfo info;

    /* 1. Single ticks, then on to the end of the turn they stopped in. */
    for (uint32_t t = 0; t < ticks; t++) {
        if (!ok(cohort_world_step(a, 1, hash), "step")) {
            return 2;
        }
        hex(hash, COHORT_HASH_BYTES, h);
        printf("tick %" PRIu32 " hash %s\n", t + 1, h);
    }
    if (!ok(cohort_world_info(a, &info), "info")) {
        return 2;
    }
    uint32_t into = (uint32_t)(info.tick % info.turn_ticks);
    if (into != 0 && !ok(cohort_world_step(a, info.turn_ticks - into, NULL), "step")) {
        return 2;
    }
    if (!ok(cohort_world_info(a, &info), "info")) {
        return 2;
    }

    /* 2. The snapshot, into the second world: the state after turn next_turn - 1. */
    size_t snap_len = 0;
    uint8_t *snap = sized(snapshot_of, &a, &snap_len, "snapshot");
    if (snap == NULL) {
        return 2;
    }
    if (cohort_world_load_snapshot(b, snap, snap_len, info.next_turn + 5) !=
        COHORT_STATUS_INVALID_ARGUMENT) {
        fprintf(stderr, "a turn contradicting the snapshot's tick was not refused\n");
        status = 1;
    }
    if (!ok(cohort_world_load_snapshot(b, snap, snap_len, info.next_turn - 1), "load")) {
        return 2;
    }
    free(snap);
    if (!ok(cohort_world_hash(a, hash), "hash") || !ok(cohort_world_hash(b, other), "hash")) {
        return 2;
    }
    if (memcmp(hash, other, sizeof hash) != 0) {
        fprintf(stderr, "the loaded snapshot hashes otherwise\n");
        status = 1;
    }

    /* 3. A bundle of one's own: player 0's first unit walks to (10, 10). */
    uint64_t unit = 0;
    size_t count = 0;
    CohortStatus s = cohort_world_player_units(a, 0, &unit, 1, &count);
    if (s != COHORT_STATUS_OK && s != COHORT_STATUS_BUFFER_TOO_SMALL) {
        ok(s, "player units");
        return 2;
    }
    if (s == COHORT_STATUS_BUFFER_TOO_SMALL) {
        uint64_t *ids = malloc(count * sizeof *ids);
        if (ids == NULL || !ok(cohort_world_player_units(a, 0, ids, count, &count), "units")) {
            return 2;
        }
        unit = ids[0];
        free(ids);
    }
    CohortOrder order;
    memset(&order, 0, sizeof order);
    order.kind = COHORT_COMMAND_MOVE;
    order.units = &unit;
    order.unit_count = 1;
    order.x_fx = 10 * COHORT_FX_ONE;
    order.y_fx = 10 * COHORT_FX_ONE;
    uint8_t player = 0;
    BundleArgs bundle_args = {info.next_turn, &order, &player};
    size_t bundle_len = 0;
    uint8_t *bundle = sized(bundle_of, &bundle_args, &bundle_len, "bundle");
    if (bundle == NULL) {
        return 2;
    }
    if (!ok(cohort_world_run_bundle(a, bundle, bundle_len, hash), "run a") ||
        !ok(cohort_world_run_bundle(b, bundle, bundle_len, other), "run b")) {
        return 2;
    }
    free(bundle);
    hex(hash, COHORT_HASH_BYTES, h);
    printf("turn %" PRIu64 " hash %s\n", info.next_turn, h);
    if (memcmp(hash, other, sizeof hash) != 0) {
        fprintf(stderr, "the two worlds differ after the bundle\n");
        status = 1;
    }

    /* 4. The answer to a SnapshotRequest for that turn. */
    size_t n = 0;
    s = cohort_world_tick_hashes(a, info.next_turn, NULL, 0, &n);
    if (s != COHORT_STATUS_BUFFER_TOO_SMALL || n != info.turn_ticks) {
        fprintf(stderr, "tick hashes: %zu, not %" PRIu32 "\n", n, info.turn_ticks);
        return 2;
    }
    uint8_t *tick_hashes = malloc(n * COHORT_TICK_HASH_BYTES);
    if (tick_hashes == NULL ||
        !ok(cohort_world_tick_hashes(a, info.next_turn, tick_hashes, n, &n), "tick hashes")) {
        return 2;
    }
    uint8_t *end = sized(snapshot_of, &a, &snap_len, "snapshot");
    if (end == NULL) {
        return 2;
    }
    EvidenceArgs evidence_args = {info.next_turn, tick_hashes, n, end, snap_len};
    size_t frames_len = 0;
    uint8_t *frames = sized(evidence_of, &evidence_args, &frames_len, "evidence");
    if (frames == NULL) {
        return 2;
    }
    char th[2 * COHORT_TICK_HASH_BYTES + 1];
    hex(tick_hashes + (n - 1) * COHORT_TICK_HASH_BYTES, COHORT_TICK_HASH_BYTES, th);
    printf("evidence for turn %" PRIu64 ": %zu tick hashes (last %s), %zu bytes of frames\n",
           info.next_turn, n, th, frames_len);
    free(frames);
    free(end);
    free(tick_hashes);
    if (!ok(cohort_world_free(a), "free") || !ok(cohort_world_free(b), "free")) {
        return 2;
    }
    return status;
}
