import { Command, Help } from 'commander'
import { describe, expect, it } from 'vitest'
import { cliCommands, listCommands } from '../../src/cli/commands.js'

// `deltaflow --help` lists the commands from a table without loading their modules; each module registers its
// command itself when it runs. The two must say the same.

describe('the command table', () => {
  it.each(cliCommands.map((entry) => [entry.name, entry] as const))(
    'lists %s with the name, description and usage its module registers',
    async (name, entry) => {
      const program = new Command()
      ;(await entry.load())(program)
      expect(program.commands).toHaveLength(1)
      const [registered] = program.commands as [Command]
      expect(registered.name()).toBe(name)
      expect(registered.description()).toBe(entry.description)
      expect(new Help().subcommandTerm(registered)).toBe(entry.usage ? `${name} ${entry.usage}` : name)
    },
  )

  it('prints the same command list as a program with every module loaded', async () => {
    const listed = new Command().name('deltaflow')
    listCommands(listed)
    const loaded = new Command().name('deltaflow')
    for (const entry of cliCommands) (await entry.load())(loaded)
    expect(listed.helpInformation()).toBe(loaded.helpInformation())
  })
})
