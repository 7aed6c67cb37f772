/**
 * `payments-sdk db schema`: prints the SQL of the tables the SDK keeps in the merchant's Postgres,
 * for merchants who run migrations with their own tool (Prisma, Drizzle, Knex, node-pg-migrate).
 * The same SQL that `postgresInbox(db).migrate()` runs; nothing here connects to a database.
 */
import type { Command } from 'commander';
import { checkTableName, DEFAULT_INBOX_TABLE, inboxNames, inboxSchemaSql } from '../postgres/inbox-schema.js';
import { CliError } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { printJson } from './output.js';

interface SchemaOptions {
  inboxTable: string;
}

/** Each table's SQL, by name, in the order to create them. */
function schemaParts(options: SchemaOptions): Array<{ name: string; sql: string }> {
  const inbox = checkTableName(options.inboxTable);
  if (!inbox.ok) throw new CliError(`--inbox-table: ${inbox.problem}.`);
  return [
    { name: 'inbox', sql: inboxSchemaSql(inboxNames(inbox.parts)) },
    // The bulk payout journal's table goes here, once `postgresJournal` exists.
  ];
}

/** Registers `db` and its subcommands on the program. */
export function registerDb(program: Command): void {
  const db = program.command('db').description("the SDK's tables in your Postgres");
  db.command('schema')
    .description('print the SQL of the tables (CREATE ... IF NOT EXISTS), for your own migration tool')
    .option('--inbox-table <name>', 'the webhook inbox table, as given to postgresInbox({ table })', DEFAULT_INBOX_TABLE)
    .action((options: SchemaOptions, command: Command) => {
      const parts = schemaParts(options);
      if (command.optsWithGlobals<GlobalOptions>().json) printJson(Object.fromEntries(parts.map((part) => [part.name, part.sql])));
      else process.stdout.write(parts.map((part) => part.sql).join('\n'));
    });
}
