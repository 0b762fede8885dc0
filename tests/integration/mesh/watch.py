"""rb_mesh watch on one rxe device, with a real Prometheus server.

    watch.py BIN DEV IP NETDEV TMP RULES

Four agents h1..h4 (one NIC each, all on DEV at IP, each on its own
rdma_cm port; h1, h2 on switch s1, h3, h4 on s2), windows of 2 s, exported
on /metrics (scraped every second by Prometheus, which evaluates RULES) and
as JSON lines.  Then one fault at a time: h3's agent stopped (SIGSTOP) and
resumed, h4's agent restarted.  Last, the bound: one agent with 8 NICs
(8 addresses added to NETDEV) and a pinglist of 1000 hosts x 8 NICs, every
peer answered by one responder agent.

Prints one line a check, "ok: WHAT" or "not ok: WHAT", in a fixed order
(CHECKS of them: prog/mesh_watch.sh plans that many), and the figures the
note quotes as "# " lines."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

# the bound (8 NICs x 1000 hosts: 12 s of ~1650 probes a second, the
# heaviest minute of the guest's CPU here) in the full run only
FULL = os.environ.get('RB_FULL') == '1'
CHECKS = 10 if FULL else 9
WINDOW, TIMEOUT_MS = 2.0, 1000
# the idle stretch: 3 windows (the nightly run's hour is idle.py's, in a
# boot of its own: prog/mesh_idle.sh)
IDLE_S = 3 * WINDOW + 1
BIN = DEV = IP = NETDEV = TMP = RULES = MESH = PROM_DIR = ''
PROM_PORT = 19690


def setup(args):
    """The command line's six words (two.py, which imports this file, gives its own)."""
    global BIN, DEV, IP, NETDEV, TMP, RULES, MESH, PROM_DIR
    BIN, DEV, IP, NETDEV, TMP, RULES = args
    PROM_DIR = TMP
    IP = IP.split('/')[0]
    MESH = os.path.join(BIN, 'rb_mesh')
reported = failed = 0


def say(ok, what):
    global reported, failed
    reported += 1
    failed += not ok
    print(('ok: ' if ok else 'not ok: ') + what, flush=True)


def note(text):
    print('# ' + text, flush=True)


JSONL = {}                  # path -> (bytes read, records): each line parsed once


def jsonl(path):
    """path's records so far (the agents append whole lines; a part line
    waits for its end).  Polled every 0.25 s by the checks: reading only
    what is new keeps the test's own CPU out of a 1-vCPU guest's way."""
    done, recs = JSONL.get(path, (0, []))
    try:
        with open(path, 'rb') as f:
            if os.fstat(f.fileno()).st_size < done:
                done, recs = 0, []
            f.seek(done)
            data = f.read()
    except FileNotFoundError:
        return []
    end = data.rfind(b'\n') + 1
    recs.extend(json.loads(line) for line in data[:end].splitlines() if line.strip())
    JSONL[path] = (done + end, recs)
    return recs


def windows(host, since=0.0):
    return [r for r in jsonl(f'{TMP}/{host}.jsonl') if r.get('type') == 'window' and r['end_s'] > since]


def alerts(host, since=0.0):
    return [r for r in jsonl(f'{TMP}/{host}.jsonl') if r.get('type') == 'alert' and r['time'] > since]


def hw_counter(name):
    try:
        with open(f'/sys/class/infiniband/{DEV}/ports/1/hw_counters/{name}') as f:
            return int(f.read())
    except OSError:
        return None


AGENT_ARGS = ['--window', str(WINDOW), '--timeout', str(TIMEOUT_MS), '--rate-switch', '20',
              '--rate-cross', '10', '--max-p99', '200000', '--max-loss', '0.2']


def start_agent(host, pinglist, http_port, extra=()):
    args = [MESH, 'watch', '--pinglist', pinglist, '--host', host, '--jsonl', f'{TMP}/{host}.jsonl',
            *AGENT_ARGS, *extra]
    if http_port:
        args += ['--listen', f'127.0.0.1:{http_port}']
    err = open(f'{TMP}/{host}.err', 'a')
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGCONT)
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode


def fetch(url, accept=None, timeout=5):
    req = urllib.request.Request(url, headers={'Accept': accept} if accept else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get('Content-Type', ''), r.read().decode()


def prom_query(expr):
    q = urllib.parse.urlencode({'query': expr})
    _, _, body = fetch(f'http://127.0.0.1:{PROM_PORT}/api/v1/query?{q}')
    return json.loads(body)['data']['result']


def start_prometheus(targets):
    cfg = f'{PROM_DIR}/prometheus.yml'
    with open(cfg, 'w') as f:
        f.write('global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
                f'rule_files:\n  - {RULES}\n'
                'scrape_configs:\n  - job_name: rb_mesh\n    static_configs:\n'
                f'      - targets: [{", ".join(repr(t) for t in targets)}]\n')
    log = open(f'{PROM_DIR}/prometheus.log', 'w')
    p = subprocess.Popen(['prometheus', f'--config.file={cfg}', f'--storage.tsdb.path={PROM_DIR}/tsdb',
                          f'--web.listen-address=127.0.0.1:{PROM_PORT}'], stdout=log, stderr=log)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None:
        try:
            if fetch(f'http://127.0.0.1:{PROM_PORT}/-/ready', timeout=2)[0] == 200:
                return p
        except OSError:
            pass
        time.sleep(0.5)
    return p


def wait_for(cond, limit, step=0.25):
    """Seconds until cond() held (cond polled every step), or None past limit."""
    t0 = time.time()
    while time.time() - t0 < limit:
        if cond():
            return time.time() - t0
        time.sleep(step)
    return None


def firing(alertname, **labels):
    sel = ','.join([f'alertname="{alertname}"', 'alertstate="firing"'] +
                   [f'{k}="{v}"' for k, v in labels.items()])
    try:
        return bool(prom_query(f'ALERTS{{{sel}}}'))
    except (OSError, ValueError, KeyError):
        return False


HOSTS = {'h1': ('s1', 18601, 19601), 'h2': ('s1', 18602, 19602), 'h3': ('s2', 18603, 19603),
         'h4': ('s2', 18604, 19604)}
LINKS = [(a, b) for a in HOSTS for b in HOSTS if a != b]


def four_agents():
    pl = f'{TMP}/four.pinglist'
    with open(pl, 'w') as f:
        for h, (sw, port, _) in HOSTS.items():
            f.write(f'{h} {DEV} 0 {IP}:{port} {sw}\n')
    return pl, {h: start_agent(h, pl, http) for h, (_, _, http) in HOSTS.items()}


def link_windows(src, dst, since=0.0):
    return [r for r in windows(src, since) if r['peer_host'] == dst]


def check_idle(agents, t_start):
    """After a window for every agent to find the others (from t_start,
    their start: Prometheus's start took some of it): 3 windows."""
    time.sleep(max(0.0, t_start + WINDOW + 1 - time.time()))
    t0 = time.time()
    time.sleep(IDLE_S)
    alive = [h for h, p in agents.items() if p.poll() is None]
    watching = all('watching 3 peer NICs' in open(f'{TMP}/{h}.err').read() for h in HOSTS)
    say(len(alive) == 4 and watching, f'4 agents up, each watching 3 peer NICs (alive: {alive})')
    answered = {l: sum(r['answered'] for r in link_windows(*l, t0) if r['start_s'] >= t0) for l in LINKS}
    lost = sum(r['lost'] for h in HOSTS for r in windows(h, t0) if r['start_s'] >= t0)
    false = sum(len([a for a in alerts(h, t0) if a['time'] > t0 + WINDOW]) for h in HOSTS)
    rs = [r for h in HOSTS for r in windows(h, t0) if r['start_s'] >= t0]
    note(f'idle {IDLE_S:.0f} s: {len(rs)} whole windows, answered per link {min(answered.values())}..'
         f'{max(answered.values())}, lost {lost}, alerts {false}')
    say(all(v > 0 for v in answered.values()) and false == 0,
        f'idle: all 12 links answered ({min(answered.values())}..{max(answered.values())} probes each), '
        f'{lost} lost, {false} alerts')


OM_CHECK = ('import sys\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families\n'
            'print(sum(len(f.samples) for f in text_string_to_metric_families(sys.stdin.read())))')


def check_metrics(body, accept):
    """promtool for the Prometheus text form; prometheus_client's strict
    parser for OpenMetrics (promtool 2.42 reads the 0.0.4 form only)."""
    if accept:
        return subprocess.run([sys.executable, '-c', OM_CHECK], input=body, capture_output=True, text=True)
    return subprocess.run(['promtool', 'check', 'metrics'], input=body, capture_output=True, text=True)


def check_exposition():
    bad = []
    for h, (_, _, http) in HOSTS.items():
        for accept, want in ((None, 'text/plain'), ('application/openmetrics-text', 'application/openmetrics-text')):
            try:
                st, ctype, body = fetch(f'http://127.0.0.1:{http}/metrics', accept)
            except OSError as e:
                bad.append(f'{h}: {e}')
                continue
            r = check_metrics(body, accept)
            if st != 200 or not ctype.startswith(want) or r.returncode != 0:
                bad.append(f'{h} {want}: status {st}, {ctype}, promtool: {(r.stdout + r.stderr).strip()[:200]}')
    say(not bad, 'each agent\'s /metrics passes promtool check metrics (text form) and prometheus_client\'s '
        'OpenMetrics parser (when asked for it)' + (': ' + '; '.join(bad) if bad else ''))


def check_prometheus():
    up = prom_query('up{job="rb_mesh"} == 1')
    series = prom_query('rb_mesh_probes_answered_total > 0')
    links = {(s['metric'].get('local_host'), s['metric'].get('peer_host')) for s in series}
    note(f'Prometheus: {len(up)} targets up, {len(links)} links with answered probes')
    say(len(up) == 4 and links == set(LINKS),
        f'Prometheus scraped 4 agents and holds answered probes for all 12 links (up {len(up)}, links {len(links)})')


def bad_window(src, dst, since):
    return any(r['loss'] >= 0.2 for r in link_windows(src, dst, since))


def check_stopped_peer(agents):
    """h3's agent stopped: every agent that probes h3 finds it bad (its
    own windows), Prometheus says host h3; resumed: all clear again."""
    others = [h for h in HOSTS if h != 'h3']
    t_stop = time.time()
    agents['h3'].send_signal(signal.SIGSTOP)
    limit = TIMEOUT_MS / 1e3 + 2 * WINDOW + 2
    t_agents = wait_for(lambda: all(bad_window(h, 'h3', t_stop) for h in others), limit + 2)
    t_prom = wait_for(lambda: firing('RbMeshHost', peer_host='h3'), limit + 4)
    t_prom = t_prom and time.time() - t_stop      # both from the stop
    wrong = [s['metric'] for s in prom_query('ALERTS{alertstate="firing",kind=~"peer|self|link|host"}')
             if s['metric'].get('peer_host', s['metric'].get('local_host')) != 'h3']
    note(f'h3 stopped: bad in all 3 agents\' windows after {t_agents} s, RbMeshHost{{h3}} after {t_prom} s '
         f'(promised {limit:.0f} s and {limit + 2:.0f} s); other alerts {wrong}')
    say(t_agents is not None and t_agents <= limit and t_prom is not None and t_prom <= limit + 2 and not wrong,
        f'h3 stopped: all 3 agents judge it bad within {limit:.0f} s ({t_agents}), '
        f'Prometheus fires RbMeshHost{{peer_host="h3"}} within {limit + 2:.0f} s ({t_prom}), nothing else blamed')
    agents['h3'].send_signal(signal.SIGCONT)
    t_cont = time.time()
    t_clear = wait_for(lambda: not firing('RbMeshHost', peer_host='h3') and
                       all(link_windows(h, 'h3', t_cont + TIMEOUT_MS / 1e3 + WINDOW) and
                           not bad_window(h, 'h3', t_cont + TIMEOUT_MS / 1e3 + WINDOW) for h in others),
                       3 * WINDOW + TIMEOUT_MS / 1e3 + 6)
    note(f'h3 resumed: clear after {t_clear} s')
    say(t_clear is not None, f'h3 resumed: its links good again and the alert gone within '
        f'{3 * WINDOW + TIMEOUT_MS / 1e3 + 6:.0f} s ({t_clear})')


def epochs(src, dst, since):
    return {r['peer_epoch'] for r in link_windows(src, dst, since) if r.get('peer_epoch')}


def check_restart(agents, pinglist):
    """h4's agent restarted: a new epoch; its probes outstanding at the
    change counted restarted, not lost."""
    t0 = time.time()
    before = epochs('h1', 'h4', t0 - 2 * WINDOW)
    stop(agents['h4'])
    agents['h4'] = start_agent('h4', pinglist, HOSTS['h4'][2])
    t_new = wait_for(lambda: len(epochs('h1', 'h4', t0) - before) >= 1 and
                     any(r['answered'] for r in link_windows('h1', 'h4', t0)), 6 * WINDOW)
    time.sleep(2 * WINDOW)
    after = [r for h in ('h1', 'h2', 'h3') for r in link_windows(h, 'h4', t0)]
    restarted = sum(r['restarted'] for r in after)
    lost = sum(r['lost'] for r in after)
    note(f'h4 restarted: new epoch seen after {t_new} s; its peers counted {restarted} restarted, {lost} lost')
    say(t_new is not None and restarted > 0,
        f'h4 restarted: h1 sees a new epoch within {6 * WINDOW:.0f} s ({t_new}) and the probes caught '
        f'by the change count as restarted ({restarted}; lost {lost})')


def check_counters(sent_before, sent_after):
    """The device's own count: every probe and every reply is a packet
    that rxe sent (SIDR's MADs add a few hundred)."""
    rs = [r for h in HOSTS for r in windows(h)]
    ours = sum(r['sent'] for r in rs) + sum(r['answered'] + r['late'] for r in rs)
    if sent_before is None or sent_after is None:
        say(False, f'{DEV} has no hw_counters/sent_pkts to check the probes against')
        return
    dev = sent_after - sent_before
    note(f'{DEV} sent_pkts {dev} over the four agents\' run; their probes and replies {ours}')
    say(ours <= dev <= ours * 1.03 + 400,
        f'{DEV}\'s sent_pkts ({dev}) within 3 % (+400 for SIDR) of the probes and replies the agents counted ({ours})')


BIG_IPS = [f'192.0.2.{101 + i}' for i in range(8)]
BIG_PORT = 18700


def big_pinglist():
    pl = f'{TMP}/big.pinglist'
    with open(pl, 'w') as f:
        for i, ip in enumerate(BIG_IPS):
            f.write(f'big n{i} {i} {ip} s1\n')
        f.write(f'resp {DEV} 99 {IP}:{BIG_PORT} s0\n')
        for h in range(1000):
            for i in range(8):
                f.write(f'p{h:04d} n{i} {i} {IP}:{BIG_PORT} s{1 + (h + 1) // 20}\n')
    return pl


def proc_figures(pid):
    with open(f'/proc/{pid}/status') as f:
        hwm = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))
    with open(f'/proc/{pid}/stat') as f:
        st = f.read().rsplit(')', 1)[1].split()
    return hwm, (int(st[11]) + int(st[12])) / os.sysconf('SC_CLK_TCK')


def check_bound():
    for ip in BIG_IPS:
        subprocess.run(['ip', 'addr', 'add', f'{ip}/24', 'dev', NETDEV], capture_output=True)
    time.sleep(1)
    pl = big_pinglist()
    resp = subprocess.Popen([MESH, 'watch', '--pinglist', pl, '--host', 'resp', '--port', str(BIG_PORT),
                             '--jsonl', f'{TMP}/resp.jsonl', '--window', str(WINDOW)],
                            stdout=subprocess.DEVNULL, stderr=open(f'{TMP}/resp.err', 'w'))
    time.sleep(1)
    t0 = time.time()
    big = subprocess.Popen([MESH, 'watch', '--pinglist', pl, '--host', 'big', '--window', str(WINDOW),
                            '--jsonl', f'{TMP}/big.jsonl'], stdout=subprocess.DEVNULL,
                           stderr=open(f'{TMP}/big.err', 'w'))
    time.sleep(6 * WINDOW)
    alive = big.poll() is None
    hwm, cpu = proc_figures(big.pid) if alive else (0, 0)
    t1 = time.time()
    stop(big)
    stop(resp)
    for ip in BIG_IPS:
        subprocess.run(['ip', 'addr', 'del', f'{ip}/24', 'dev', NETDEV], capture_output=True)
    rs = [r for r in windows('big') if r['start_s'] >= t0 + 2 * WINDOW - 0.5]
    span = max((r['end_s'] for r in rs), default=0) - min((r['start_s'] for r in rs), default=0)
    rate = sum(r['sent'] for r in rs) / span if span > 0 else 0
    bound = 8 * (19 * 10 + 16 * 1)
    peers = {(r['local_nic'], r['peer_host']) for r in windows('big')}
    err = open(f'{TMP}/big.err').read()
    ans = sum(r['answered'] for r in rs)
    dec = ans + sum(r['lost'] for r in rs)
    note(f'8 NICs x 1000 hosts: {len(peers)} peers probed, {rate:.0f} probes/s (bound {bound}), '
         f'VmHWM {hwm / 1024:.1f} MiB, CPU {cpu:.1f} s over {t1 - t0:.1f} s, '
         f'answered {ans} of {dec} decided')
    said = err.count('over --max-peers')
    say(alive and 'watching 2048 peer NICs' in err and said == 8 and 0 < rate <= 1.02 * bound and
        hwm < 64 * 1024,
        f'8 NICs x 1000 hosts, --max-peers 256: 2048 peers kept, the rest said for {said} of 8 NICs, '
        f'{rate:.0f} probes/s within the bound {bound}, VmHWM {hwm / 1024:.1f} MiB < 64 MiB')


def main():
    setup(sys.argv[1:7])
    agents = {}
    prom = None
    try:
        sent_before = hw_counter('sent_pkts')
        pl, agents = four_agents()
        t0 = time.time()
        prom = start_prometheus([f'127.0.0.1:{http}' for _, _, http in HOSTS.values()])
        check_idle(agents, t0)
        check_exposition()
        check_prometheus()
        check_stopped_peer(agents)
        check_restart(agents, pl)
        rcs = {h: stop(p) for h, p in agents.items()}
        say(all(rc == 0 for rc in rcs.values()), f'the agents exit 0 at SIGTERM ({rcs})')
        check_counters(sent_before, hw_counter('sent_pkts'))
        if FULL:
            check_bound()
    finally:
        for p in agents.values():
            stop(p)
        if prom:
            stop(prom)
        while reported < CHECKS:
            say(False, f'check {reported + 1} of {CHECKS} not reached')


if __name__ == '__main__':
    main()
