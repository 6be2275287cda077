import type { Command } from 'commander'
import { configJsonSchema } from '../config/schema.js'
import { descriptionOf } from './command-summaries.js'

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description(descriptionOf('schema'))
    .action(() => {
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
    })
}
