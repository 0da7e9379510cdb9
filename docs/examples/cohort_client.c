/* A Cohort player in C, over the C ABI (ffi/include/cohort.h; docs/EMBEDDING.md).
 *
 * It joins a match, runs every turn the server sends (the sim runs inside libcohort_ffi, so
 * the state hashes it sends are real), gives orders to its own units every few turns, reads
 * the world the way a renderer would (interpolating between previous and current positions),
 * prints one line per turn — `turn N hash HEX` — and leaves after TURNS turns, or when the
 * match ends (TURNS 0).
 *
 * Build (from the repository's root, after `cargo build --release -p cohort-ffi`):
 *   cc -std=c11 -Wall -Wextra -I ffi/include docs/examples/cohort_client.c \
 *      -L target/release -lcohort_ffi -Wl,-rpath,$PWD/target/release -o cohort_client
 * Run:
 *   ./cohort_client 127.0.0.1:7676 FINGERPRINT TOKEN [TURNS]
 * Exit status: 0 when it played to the end with every hash agreeing, 1 on a desync, 2 on an
 * error (refused, connection lost, a failing call).
 */
#include "cohort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the failing call's status and message; returns 0 when `s` is an error. */
static int ok(CohortStatus s, const char *what) {
    if (s == COHORT_STATUS_OK) {
        return 1;
    }
    char name[64];
    size_t name_len = cohort_status_name(s, (uint8_t *)name, sizeof name);
    char message[512];
    size_t len = cohort_last_error((uint8_t *)message, sizeof message);
    if (len > sizeof message) {
        len = sizeof message; /* cut: the library cuts at a character boundary */
    }
    fprintf(stderr, "%s: %.*s: %.*s\n", what, (int)name_len, name, (int)len, message);
    return 0;
}

static void hex(const uint8_t hash[32], char out[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[hash[i] >> 4];
        out[2 * i + 1] = digits[hash[i] & 15];
    }
    out[64] = 0;
}

/* A small deterministic generator, so a run's orders are the same every time. */
static uint32_t next_random(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* Gives an order to some of this player's units: moves mostly, a formation now and then. */
static int give_orders(CohortHandle client, uint64_t turn, uint32_t *rng) {
    CohortClientStatus status;
    if (!ok(cohort_client_status(client, &status), "status") || status.player < 0) {
        return status.player < 0; /* a spectator gives no orders */
    }
    CohortWorldInfo info;
    if (!ok(cohort_world_info(client, &info), "world info")) {
        return 0;
    }
    uint64_t ids[64];
    size_t count = 0;
    if (!ok(cohort_world_player_units(client, (uint32_t)status.player, ids, 64, &count),
            "player units")) {
        return 0;
    }
    if (count == 0) {
        return 1;
    }
    /* Two of the units, around the first one's position, within 8 tiles, on the map. */
    CohortUnit first;
    if (!ok(cohort_world_unit(client, ids[0], &first), "unit")) {
        return 0;
    }
    size_t n = count < 2 ? count : 2;
    int64_t dx = (int64_t)(next_random(rng) % 17) - 8;
    int64_t dy = (int64_t)(next_random(rng) % 17) - 8;
    int64_t x = first.x_fx / COHORT_FX_ONE + dx;
    int64_t y = first.y_fx / COHORT_FX_ONE + dy;
    if (x < 1) x = 1;
    if (y < 1) y = 1;
    if (x > info.width - 2) x = info.width - 2;
    if (y > info.height - 2) y = info.height - 2;

    CohortOrder orders[2];
    memset(orders, 0, sizeof orders);
    size_t given = 1;
    orders[0].units = ids;
    orders[0].unit_count = n;
    orders[0].x_fx = x * COHORT_FX_ONE + COHORT_FX_ONE / 2;
    orders[0].y_fx = y * COHORT_FX_ONE;
    switch ((turn / 10) % 4) {
    case 0:
        orders[0].kind = COHORT_COMMAND_MOVE;
        break;
    case 1:
        orders[0].kind = COHORT_COMMAND_SET_FORMATION;
        orders[0].formation = COHORT_FORMATION_BOX;
        orders[1] = orders[0];
        orders[1].kind = COHORT_COMMAND_FORMATION_MOVE;
        given = 2;
        break;
    case 2:
        orders[0].kind = COHORT_COMMAND_ATTACK_MOVE;
        break;
    default:
        orders[0].kind = COHORT_COMMAND_STOP;
        break;
    }
    return ok(cohort_client_order(client, orders, given), "order");
}

/* What a renderer does each frame: every unit, drawn between where it stood before the last
 * turn and where it stands now (`t` from 0 to 1 over the turn). Returns the units drawn. */
static size_t draw(CohortHandle client, double t) {
    size_t count = 0;
    CohortStatus s = cohort_world_units(client, NULL, 0, &count);
    if (s != COHORT_STATUS_OK && s != COHORT_STATUS_BUFFER_TOO_SMALL) {
        ok(s, "units");
        return 0;
    }
    CohortUnit *units = calloc(count ? count : 1, sizeof *units);
    if (units == NULL) {
        return 0;
    }
    size_t drawn = 0;
    if (ok(cohort_world_units(client, units, count, &count), "units")) {
        double sx = 0, sy = 0;
        for (size_t i = 0; i < count; i++) {
            sx += units[i].previous_x + (units[i].x - units[i].previous_x) * t;
            sy += units[i].previous_y + (units[i].y - units[i].previous_y) * t;
            drawn++;
        }
        (void)sx;
        (void)sy;
    }
    free(units);
    return drawn;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s HOST:PORT FINGERPRINT TOKEN [TURNS]\n", argv[0]);
        return 2;
    }
    uint64_t max_turns = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
    const char *name = "c-client";

    CohortConnectOptions options;
    memset(&options, 0, sizeof options);
    options.server = (const uint8_t *)argv[1];
    options.server_len = strlen(argv[1]);
    options.fingerprint = (const uint8_t *)argv[2];
    options.fingerprint_len = strlen(argv[2]);
    options.token = (const uint8_t *)argv[3];
    options.token_len = strlen(argv[3]);
    options.name = (const uint8_t *)name;
    options.name_len = strlen(name);

    CohortHandle client = 0;
    if (!ok(cohort_client_connect(&options, &client), "connect")) {
        return 2;
    }
    /* A lost connection (a link that fails, a server restarted or the match moved) is taken
       back by the client itself for up to 120 s, inside cohort_client_poll (docs/EMBEDDING.md,
       "Coming back after a lost connection"). */
    if (!ok(cohort_client_reconnect_for(client, 120), "reconnect_for")) {
        cohort_client_free(client);
        return 2;
    }
    int status = 0;
    int over = 0;
    uint64_t turns = 0;
    uint32_t rng = 7;
    static CohortEvent event; /* large (1 KiB of text): not on the stack */
    char h[65];
    while (!over) {
        /* A game would render a frame here; this program waits for the server instead. */
        cohort_client_wait(client, 100);
        for (;;) {
            if (!ok(cohort_client_poll(client, &event), "poll")) {
                status = 2;
                over = 1;
                break;
            }
            if (event.kind == COHORT_EVENT_KIND_NONE) {
                break;
            }
            switch (event.kind) {
            case COHORT_EVENT_KIND_JOINED:
                printf("joined %.*s as player %d at turn %" PRIu64 "\n", (int)event.name_len,
                       (const char *)event.name, event.player, event.turn);
                break;
            case COHORT_EVENT_KIND_TURN_RUN:
                hex(event.hash, h);
                printf("turn %" PRIu64 " hash %s\n", event.turn, h);
                turns++;
                draw(client, 0.5);
                if (event.turn % 5 == 1 && !give_orders(client, event.turn, &rng)) {
                    status = 2;
                }
                if (max_turns > 0 && turns >= max_turns) {
                    cohort_client_leave(client, 0);
                    over = 1;
                }
                break;
            case COHORT_EVENT_KIND_HASH_DISAGREES:
            case COHORT_EVENT_KIND_DESYNC:
                fprintf(stderr, "desync after turn %" PRIu64 "\n", event.turn);
                status = 1;
                break;
            case COHORT_EVENT_KIND_ERROR:
            case COHORT_EVENT_KIND_LAG_WARNING:
                fprintf(stderr, "server error %d: %.*s\n", event.code, (int)event.text_len,
                        (const char *)event.text);
                if (event.closes) {
                    status = 2;
                    over = 1;
                }
                break;
            case COHORT_EVENT_KIND_REFUSED:
                fprintf(stderr, "refused: %.*s\n", (int)event.text_len, (const char *)event.text);
                break;
            case COHORT_EVENT_KIND_CONNECTION_LOST:
                fprintf(stderr, "connection lost: %.*s\n", (int)event.text_len,
                        (const char *)event.text);
                status = 2;
                over = 1;
                break;
            case COHORT_EVENT_KIND_SERVER_NOT_TRUSTED:
                /* Permanent: another try meets the same certificate. */
                fprintf(stderr, "server not trusted: %.*s\n", (int)event.text_len,
                        (const char *)event.text);
                status = 2;
                over = 1;
                break;
            case COHORT_EVENT_KIND_MATCH_ENDED:
                printf("match ended after turn %" PRIu64 " (reason %d)\n", event.turn, event.code);
                over = 1;
                break;
            default:
                break;
            }
            if (over) {
                break;
            }
        }
    }
    CohortClientStatus final;
    if (ok(cohort_client_status(client, &final), "status")) {
        printf("turns %" PRIu64 " agreed %" PRIu64 " disagreed %" PRIu64 " commands %" PRIu64
               "\n",
               final.turns_run, final.hashes_agreed, final.hashes_disagreed, final.commands_sent);
        if (final.hashes_disagreed > 0) {
            status = 1;
        }
    }
    if (!ok(cohort_client_free(client), "free")) {
        status = 2;
    }
    /* A freed handle is refused, not used. */
    if (cohort_client_free(client) != COHORT_STATUS_INVALID_HANDLE) {
        fprintf(stderr, "a freed handle was not refused\n");
        status = 2;
    }
    return status;
}
