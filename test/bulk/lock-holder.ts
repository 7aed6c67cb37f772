/**
 * A process that opens a file journal (env `BULK_JOURNAL`) and keeps it open until it is killed:
 * prints `locked <pid>` once the journal holds its lock.
 */
import { fileJournal } from '../../src/index.js';

const path = process.env.BULK_JOURNAL;
if (!path) throw new Error('BULK_JOURNAL is not set');
await fileJournal(path).read('payroll', ['0']);
process.stdout.write(`locked ${process.pid}\n`);
setInterval(() => {}, 60_000);
