// A Cohort player in C#, over the C ABI with P/Invoke (ffi/include/cohort.h;
// docs/EMBEDDING.md, "From C#"): what a Unity game does, without Unity. It joins a match, runs
// every turn the server sends (the sim runs inside libcohort_ffi, so the hashes it sends are
// real), orders its own units every few turns, prints `turn N hash HEX` per turn, and ends
// with the match. The declarations below are the ones docs/EMBEDDING.md shows (a test holds
// the doc to this file).
//
// Build and run (Debian: apt-get install mono-mcs mono-runtime; after
// `cargo build --release -p cohort-ffi`):
//   mcs -unsafe -out:CohortClient.exe docs/examples/CohortClient.cs
//   LD_LIBRARY_PATH=target/release mono CohortClient.exe HOST:PORT FINGERPRINT TOKEN
// Exit status: 0 when it played to the end with every hash agreeing, 1 on a desync, 2 on an
// error.
using System;
using System.Runtime.InteropServices;
using System.Text;

[StructLayout(LayoutKind.Sequential)]
unsafe struct CohortConnectOptions {
    public byte* server; public UIntPtr server_len;
    public byte* fingerprint; public UIntPtr fingerprint_len;
    public byte* ca_file; public UIntPtr ca_file_len;
    public byte* server_name; public UIntPtr server_name_len;
    public byte* token; public UIntPtr token_len;
    public byte* name; public UIntPtr name_len;
    public byte* ruleset_toml; public UIntPtr ruleset_len;
}

[StructLayout(LayoutKind.Sequential)]
unsafe struct CohortEvent {
    public int kind; public ulong turn; public ulong asked_turn; public uint count;
    public uint input_delay; public int player; public int agrees; public byte continuing;
    public byte closes; public int code; public uint players; public long rtt_us;
    public ulong resumes_in_ms; public fixed byte hash[32]; public fixed byte other_hash[32];
    public uint name_len; public fixed byte name[64]; public uint text_len; public fixed byte text[1024];
}

[StructLayout(LayoutKind.Sequential)]
unsafe struct CohortOrder {
    public int kind; public ulong* units; public UIntPtr unit_count;
    public long x_fx; public long y_fx; public ulong target;
    public int tile_x; public int tile_y; public byte turned; public int formation;
    public byte* building; public UIntPtr building_len;
}

[StructLayout(LayoutKind.Sequential)]
struct CohortClientStatus {
    public int phase; public int player; public byte spectator; public byte paused;
    public byte may_rejoin; public ulong next_turn; public ulong order_turn;
    public uint input_delay; public long rtt_us; public ulong turns_run;
    public ulong hashes_agreed; public ulong hashes_disagreed; public ulong desync_notices;
    public ulong commands_sent; public ulong rescheduled;
}

[StructLayout(LayoutKind.Sequential)]
struct CohortUnit {
    public ulong id; public uint owner; public uint kind; public int state; public int order;
    public uint hit_points; public uint formation; public long x_fx; public long y_fx;
    public double x; public double y; public long previous_x_fx; public long previous_y_fx;
    public double previous_x; public double previous_y; public long order_x_fx;
    public long order_y_fx; public ulong order_target; public ulong fighting;
    public int carrying_good; public uint carrying_amount; public byte walking;
}

static unsafe class Cohort {
    const string Lib = "cohort_ffi";
    public const int EVENT_NONE = 0, EVENT_JOINED = 1, EVENT_TURN_RUN = 4,
        EVENT_HASH_DISAGREES = 6, EVENT_DESYNC = 7, EVENT_ERROR = 13,
        EVENT_CONNECTION_LOST = 15, EVENT_MATCH_ENDED = 16, EVENT_SERVER_NOT_TRUSTED = 17;
    public const int COMMAND_MOVE = 0, COMMAND_STOP = 8;
    public const long FX_ONE = 65536;
    [DllImport(Lib)] public static extern uint cohort_abi_version();
    [DllImport(Lib)] public static extern int cohort_client_connect(CohortConnectOptions* o, out ulong client);
    [DllImport(Lib)] public static extern int cohort_client_poll(ulong client, out CohortEvent e);
    [DllImport(Lib)] public static extern int cohort_client_wait(ulong client, uint timeout_ms);
    [DllImport(Lib)] public static extern int cohort_client_reconnect_for(ulong client, uint seconds);
    [DllImport(Lib)] public static extern int cohort_client_status(ulong client, out CohortClientStatus s);
    [DllImport(Lib)] public static extern int cohort_world_player_units(ulong h, uint player, ulong* ids, UIntPtr cap, out UIntPtr count);
    [DllImport(Lib)] public static extern int cohort_world_unit(ulong h, ulong id, out CohortUnit unit);
    [DllImport(Lib)] public static extern int cohort_client_order(ulong client, CohortOrder* orders, UIntPtr count);
    [DllImport(Lib)] public static extern int cohort_client_free(ulong client);
    [DllImport(Lib)] public static extern UIntPtr cohort_last_error(byte* buf, UIntPtr cap);
}

static unsafe class Program {
    static string LastError() {
        byte[] buf = new byte[512];
        fixed (byte* b = buf) {
            ulong n = (ulong)Cohort.cohort_last_error(b, (UIntPtr)buf.Length);
            return Encoding.UTF8.GetString(buf, 0, (int)Math.Min(n, (ulong)buf.Length));
        }
    }

    static bool Ok(int status, string what) {
        if (status == 0) return true;
        Console.Error.WriteLine(what + ": status " + status + ": " + LastError());
        return false;
    }

    static string Hex(byte* bytes, int n) {
        var s = new StringBuilder(2 * n);
        for (int i = 0; i < n; i++) s.Append(bytes[i].ToString("x2"));
        return s.ToString();
    }

    static string Text(byte* bytes, uint len) {
        byte[] copy = new byte[len];
        Marshal.Copy((IntPtr)bytes, copy, 0, (int)len);
        return Encoding.UTF8.GetString(copy);
    }

    // Two of this player's units walk to a point near the first, or stop.
    static bool GiveOrders(ulong client, ulong turn) {
        CohortClientStatus status;
        if (!Ok(Cohort.cohort_client_status(client, out status), "status")) return false;
        if (status.player < 0) return true;
        ulong* ids = stackalloc ulong[64];
        UIntPtr count;
        if (!Ok(Cohort.cohort_world_player_units(client, (uint)status.player, ids, (UIntPtr)64, out count), "units")) return false;
        if ((ulong)count == 0) return true;
        CohortUnit first;
        if (!Ok(Cohort.cohort_world_unit(client, ids[0], out first), "unit")) return false;
        long dx = (long)(turn * 7 % 11) - 5, dy = (long)(turn * 5 % 11) - 5;
        long x = Math.Max(1, first.x_fx / Cohort.FX_ONE + dx), y = Math.Max(1, first.y_fx / Cohort.FX_ONE + dy);
        var order = new CohortOrder {
            kind = (turn / 10) % 2 == 0 ? Cohort.COMMAND_MOVE : Cohort.COMMAND_STOP,
            units = ids, unit_count = (UIntPtr)Math.Min(2UL, (ulong)count),
            x_fx = x * Cohort.FX_ONE + Cohort.FX_ONE / 2, y_fx = y * Cohort.FX_ONE,
        };
        return Ok(Cohort.cohort_client_order(client, &order, (UIntPtr)1), "order");
    }

    static int Main(string[] args) {
        if (args.Length < 3) {
            Console.Error.WriteLine("usage: CohortClient.exe HOST:PORT FINGERPRINT TOKEN");
            return 2;
        }
        if (Cohort.cohort_abi_version() != 1) {
            Console.Error.WriteLine("another ABI version: " + Cohort.cohort_abi_version());
            return 2;
        }
        byte[] server = Encoding.UTF8.GetBytes(args[0]), fp = Encoding.UTF8.GetBytes(args[1]),
            token = Encoding.UTF8.GetBytes(args[2]), name = Encoding.UTF8.GetBytes("cs-client");
        ulong client;
        // Pin the UTF-8 bytes for the call only: nothing is kept.
        fixed (byte* s = server, f = fp, t = token, n = name) {
            var o = new CohortConnectOptions {
                server = s, server_len = (UIntPtr)server.Length,
                fingerprint = f, fingerprint_len = (UIntPtr)fp.Length,
                token = t, token_len = (UIntPtr)token.Length,
                name = n, name_len = (UIntPtr)name.Length,
            };
            if (!Ok(Cohort.cohort_client_connect(&o, out client), "connect")) return 2;
        }
        // A lost connection (a link that fails, a server restarted or the match moved) is taken
        // back by the client itself for up to 120 s, inside cohort_client_poll (EMBEDDING.md).
        if (!Ok(Cohort.cohort_client_reconnect_for(client, 120), "reconnect_for")) {
            Cohort.cohort_client_free(client);
            return 2;
        }
        int exit = 0;
        bool over = false;
        while (!over) {
            // A game polls once a frame in Update(); this program waits for the server instead.
            Cohort.cohort_client_wait(client, 100);
            CohortEvent e;
            while (!over) {
                if (!Ok(Cohort.cohort_client_poll(client, out e), "poll")) { exit = 2; over = true; break; }
                if (e.kind == Cohort.EVENT_NONE) break;
                switch (e.kind) {
                case Cohort.EVENT_JOINED:
                    Console.WriteLine("joined " + Text(e.name, e.name_len) + " as player " + e.player + " at turn " + e.turn);
                    break;
                case Cohort.EVENT_TURN_RUN:
                    Console.WriteLine("turn " + e.turn + " hash " + Hex(e.hash, 32));
                    if (e.turn % 5 == 1 && !GiveOrders(client, e.turn)) exit = 2;
                    break;
                case Cohort.EVENT_HASH_DISAGREES:
                case Cohort.EVENT_DESYNC:
                    Console.Error.WriteLine("desync after turn " + e.turn);
                    exit = 1;
                    break;
                case Cohort.EVENT_ERROR:
                    Console.Error.WriteLine("server error " + e.code + ": " + Text(e.text, e.text_len));
                    if (e.closes != 0) { exit = 2; over = true; }
                    break;
                case Cohort.EVENT_CONNECTION_LOST:
                case Cohort.EVENT_SERVER_NOT_TRUSTED:
                    Console.Error.WriteLine("connection: " + Text(e.text, e.text_len));
                    exit = 2;
                    over = true;
                    break;
                case Cohort.EVENT_MATCH_ENDED:
                    Console.WriteLine("match ended after turn " + e.turn + " (reason " + e.code + ")");
                    over = true;
                    break;
                }
            }
        }
        CohortClientStatus final;
        if (Ok(Cohort.cohort_client_status(client, out final), "status")) {
            Console.WriteLine("turns " + final.turns_run + " agreed " + final.hashes_agreed + " disagreed " + final.hashes_disagreed + " commands " + final.commands_sent);
            if (final.hashes_disagreed > 0) exit = 1;
        }
        if (!Ok(Cohort.cohort_client_free(client), "free")) exit = 2;
        return exit;
    }
}
