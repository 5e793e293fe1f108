#!/usr/bin/env python3
"""The source document's Python logic, scaled to N orders: the baseline `outbox-sim bench`
is compared with (the core-speed issue; README "The core").

What it does, as the source's demo does, with no time, broker, log or invariant checks:
every order is written with its message row (PENDING); then a job scans the whole message
list for PENDING rows and marks up to `--batch` of them SENT, handing them to a consumer
that skips keys it has seen (a dedup set) and marks the row DONE; repeated until nothing is
PENDING. Each scan reads every row (a list comprehension over the table), as the source's
does, so rows examined grow as N x N / batch.

    python3 scripts/bench-baseline.py --orders 20000 --batch 20
    python3 scripts/bench-baseline.py --orders 1000000 --batch 1000000

Prints one line: orders, batch, scans, rows examined, seconds, orders/s.
"""
import argparse
import sys
import time


def run(orders, batch):
    table = []
    for n in range(orders):
        table.append({'msg_id': n + 1, 'biz_key': 'ORD-%07d' % (n + 1), 'amount': 10.0, 'status': 'PENDING'})
    seen = set()
    effects = 0
    scans = 0
    examined = 0
    while True:
        pending = [row for row in table if row['status'] == 'PENDING']
        scans += 1
        examined += len(table)
        if not pending:
            break
        for row in pending[:batch]:
            row['status'] = 'SENT'
            if row['biz_key'] not in seen:
                seen.add(row['biz_key'])
                effects += 1
            row['status'] = 'DONE'
    return scans, examined, effects


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--orders', type=int, default=20000)
    parser.add_argument('--batch', type=int, default=20)
    args = parser.parse_args()
    if not 1 <= args.orders <= 10_000_000:
        sys.exit('bench-baseline: --orders %d: allowed 1 to 10000000' % args.orders)
    if not 1 <= args.batch <= 10_000_000:
        sys.exit('bench-baseline: --batch %d: allowed 1 to 10000000' % args.batch)
    started = time.perf_counter()
    scans, examined, effects = run(args.orders, args.batch)
    seconds = time.perf_counter() - started
    if effects != args.orders:
        sys.exit('bench-baseline: %d effects for %d orders' % (effects, args.orders))
    print('baseline orders=%d batch=%d: scans %d, rows examined %d, %.2f s, %.0f orders/s'
          % (args.orders, args.batch, scans, examined, seconds, args.orders / seconds))


if __name__ == '__main__':
    main()
