/**
 * `payments-sdk db schema`: prints the SQL of the tables the SDK keeps in the merchant's Postgres,
 * for merchants who run migrations with their own tool (Prisma, Drizzle, Knex, node-pg-migrate).
 * The same SQL that `postgresInbox(db).migrate()` and `postgresJournal(db).migrate()` run; nothing
 * here connects to a database.
 */
import type { Command } from 'commander';
import { checkTableName, DEFAULT_INBOX_TABLE, inboxNames, inboxSchemaSql } from '../postgres/inbox-schema.js';
import { DEFAULT_JOURNAL_TABLE, journalNames, journalSchemaSql } from '../postgres/journal-schema.js';
import { CliError } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { printJson } from './output.js';

interface SchemaOptions {
  inboxTable: string;
  journalTable: string;
}

/** Each table's SQL, by name, in the order to create them. */
function schemaParts(options: SchemaOptions): Array<{ name: string; sql: string }> {
  const inbox = checkTableName(options.inboxTable);
  const journal = checkTableName(options.journalTable);
  const problems = [
    ...(inbox.ok ? [] : [`--inbox-table: ${inbox.problem}.`]),
    ...(journal.ok ? [] : [`--journal-table: ${journal.problem}.`]),
  ];
  if (!inbox.ok || !journal.ok) throw new CliError(problems.join(' '));
  return [
    { name: 'inbox', sql: inboxSchemaSql(inboxNames(inbox.parts)) },
    { name: 'journal', sql: journalSchemaSql(journalNames(journal.parts)) },
  ];
}

/** Registers `db` and its subcommands on the program. */
export function registerDb(program: Command): void {
  const db = program.command('db').description("the SDK's tables in your Postgres");
  db.command('schema')
    .description('print the SQL of the tables (CREATE ... IF NOT EXISTS), for your own migration tool')
    .option('--inbox-table <name>', 'the webhook inbox table, as given to postgresInbox({ table })', DEFAULT_INBOX_TABLE)
    .option('--journal-table <name>', 'the bulk payout journal table, as given to postgresJournal({ table })', DEFAULT_JOURNAL_TABLE)
    .action((options: SchemaOptions, command: Command) => {
      const parts = schemaParts(options);
      if (command.optsWithGlobals<GlobalOptions>().json) printJson(Object.fromEntries(parts.map((part) => [part.name, part.sql])));
      else process.stdout.write(parts.map((part) => part.sql).join('\n'));
    });
}
