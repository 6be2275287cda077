import type { Command } from 'commander'
import { configJsonSchema } from '../config/schema.js'

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of the YAML configuration, for editors: deltaflow schema > deltaflow.schema.json')
    .action(() => {
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
    })
}
