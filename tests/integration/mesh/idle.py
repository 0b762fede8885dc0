"""rb_mesh watch left alone: the nightly run's idle hour (prog/mesh_idle.sh).

    idle.py SECONDS BIN DEV IP NETDEV TMP RULES

watch.py's four agents (h1..h4 on DEV, two switches, windows of 2 s) and
its Prometheus (scraping each agent every second, RULES evaluated), then
nothing for SECONDS: no agent may raise an alert and Prometheus may fire
none, every link must have its windows all along, every scrape must
succeed, and no agent may grow.  Prints "ok: WHAT" / "not ok: WHAT" lines
(CHECKS of them) and "# " notes; a note every 10 minutes on stderr."""

import sys
import time

import watch as mt

CHECKS = 6
W = mt.WINDOW
MAX_P99_US = int(mt.AGENT_ARGS[mt.AGENT_ARGS.index('--max-p99') + 1])
GROWTH_KIB = 1024           # an agent's VmRSS may move this much after its first sixth


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        return next(int(l.split()[1]) for l in f if l.startswith('VmRSS:'))


def idle(agents, secs):
    """Sleeps secs from now in steps, sampling each agent's VmRSS and CPU;
    returns (t0, samples: host -> [(t, rss KiB, cpu s)])."""
    t0 = time.time()
    samples = {h: [] for h in agents}
    step, told = max(1.0, secs / 60), 0
    while (left := secs - (time.time() - t0)) > 0:
        time.sleep(min(step, left))
        for h, p in agents.items():
            if p.poll() is None:
                samples[h].append((time.time() - t0, rss_kib(p.pid), mt.proc_figures(p.pid)[1]))
        if time.time() - t0 >= told + 600:
            told += 600
            print(f'idle: {told} of {secs:.0f} s', file=sys.stderr, flush=True)
    return t0, samples


def check_windows(t0, secs):
    """Every link's windows all along (a missing one: the agent stalled)."""
    want = int(secs / W) - 1
    per = {l: [r for r in mt.link_windows(*l, t0) if r['start_s'] >= t0 and r['end_s'] <= t0 + secs]
           for l in mt.LINKS}
    n = {l: len(rs) for l, rs in per.items()}
    empty = sum(1 for rs in per.values() for r in rs if not r['answered'])
    p99 = sorted(r['rtt_p99_us'] or 0 for rs in per.values() for r in rs)
    over = sum(1 for v in p99 if v > MAX_P99_US)
    mt.note(f'window p99s: median {p99[len(p99) // 2] / 1e3 if p99 else 0:.1f} ms, max {p99[-1] / 1e3 if p99 else 0:.1f} ms; '
            f'{over} of {len(p99)} windows over --max-p99 {MAX_P99_US / 1e3:.0f} ms')
    sent = sum(r['sent'] for rs in per.values() for r in rs)
    lost = sum(r['lost'] for rs in per.values() for r in rs)
    mt.note(f'windows per link {min(n.values())}..{max(n.values())} of {want} expected; {sent} probes, '
            f'{lost} lost ({100 * lost / max(sent, 1):.3f} %); {empty} windows with none answered')
    mt.say(min(n.values()) >= 0.95 * want and lost <= 0.01 * sent,
           f'{secs:.0f} s idle: every one of the 12 links has its windows ({min(n.values())}..{max(n.values())} '
           f'of {want}), {lost} of {sent} probes lost (at most 1 %)')


def check_alerts(t0, secs):
    false = [a for h in mt.HOSTS for a in mt.alerts(h, t0 + W)]
    mt.note(f'agents\' alerts: {len(false)} {sorted({(a["kind"], a["where"]) for a in false})[:6]}')
    mt.say(not false, f'{secs:.0f} s idle: no agent raised an alert ({len(false)})')


def check_prometheus(secs):
    span = f'{int(secs)}s'
    fired = mt.prom_query(f'count_over_time(ALERTS{{alertstate="firing"}}[{span}])')
    pending = mt.prom_query(f'count_over_time(ALERTS{{alertstate="pending"}}[{span}])')
    up = mt.prom_query(f'avg_over_time(up{{job="rb_mesh"}}[{span}])')
    scrapes = mt.prom_query(f'count_over_time(up{{job="rb_mesh"}}[{span}])')
    share = sorted(float(s['value'][1]) for s in up)
    count = sorted(int(float(s['value'][1])) for s in scrapes)
    mt.note(f'Prometheus over {span}: firing {[s["metric"].get("alertname") for s in fired]}, pending '
            f'{[s["metric"].get("alertname") for s in pending]}; scrapes per target {count}, up share {share}')
    mt.say(not fired and len(share) == 4 and share[0] >= 0.99 and count[0] >= 0.95 * secs,
           f'{secs:.0f} s idle: Prometheus fired no alert ({len(fired)}), scraped all 4 agents '
           f'({count[0] if count else 0}+ scrapes each, up {100 * (share[0] if share else 0):.1f} %+)')


def check_growth(samples, secs):
    """Each agent's VmRSS from the first sixth on, and its CPU."""
    grew, words = {}, []
    for h, s in samples.items():
        later = [kib for t, kib, _ in s if t >= secs / 6]
        grew[h] = max(later) - later[0] if later else None
        cpu = s[-1][2] - s[0][2] if len(s) > 1 else 0
        words.append(f'{h} {later[0] if later else 0}->{later[-1] if later else 0} KiB, '
                     f'CPU {100 * cpu / max(s[-1][0] - s[0][0], 1) if len(s) > 1 else 0:.2f} %')
    mt.note('VmRSS after the first sixth, and CPU: ' + '; '.join(words))
    mt.say(all(g is not None and g <= GROWTH_KIB for g in grew.values()),
           f'{secs:.0f} s idle: no agent grew (VmRSS +{max((g or 0) for g in grew.values())} KiB at most, '
           f'{GROWTH_KIB} allowed)')


def main():
    secs = float(sys.argv[1])
    mt.setup(sys.argv[2:8])
    agents, prom = {}, None
    try:
        pl, agents = mt.four_agents()
        prom = mt.start_prometheus([f'127.0.0.1:{http}' for _, _, http in mt.HOSTS.values()])
        time.sleep(W + 1)
        t0, samples = idle(agents, secs)
        alive = [h for h, p in agents.items() if p.poll() is None]
        mt.say(len(alive) == 4, f'4 agents alive through {secs:.0f} s of idle ({alive})')
        check_windows(t0, secs)
        check_alerts(t0, secs)
        check_prometheus(secs)
        check_growth(samples, secs)
        rcs = {h: mt.stop(p) for h, p in agents.items()}
        mt.say(all(rc == 0 for rc in rcs.values()), f'the agents exit 0 at SIGTERM ({rcs})')
    finally:
        for p in agents.values():
            mt.stop(p)
        if prom:
            mt.stop(prom)
        while mt.reported < CHECKS:
            mt.say(False, f'check {mt.reported + 1} of {CHECKS} not reached')


if __name__ == '__main__':
    main()
