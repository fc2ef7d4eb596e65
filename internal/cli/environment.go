package cli

import (
	"os"
	"strings"
)

// credentialVars are the variables that hold the bot's secrets: the tokens
// and keys it reads for GitHub and for signing its requests.
var credentialVars = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "TAXKERNELBOT_TOKEN",
	"TAXKERNELBOT_APP_PRIVATE_KEY", "TAXKERNELBOT_SIGNING_KEY",
}

// TakeEnvironment reads the process's environment once and returns it as a
// Getenv, after removing the bot's credentials from the process's own
// environment: the code that needs them reads them through IO.Getenv, and
// nothing the process starts later (a parser of the world's documents
// above all) inherits them, whatever environment it is given.
func TakeEnvironment() func(string) string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, k := range credentialVars {
		os.Unsetenv(k)
	}
	return func(k string) string { return env[k] }
}
