package gitstore

import "github.com/go-git/go-git/v5/storage/memory"

// memoryRepo returns a Repo that keeps its objects in memory: a store no
// test has to clean up. Production keeps them on disk (Open) or fetches
// only what it reads (OpenPartial).
func memoryRepo(r Remote) (*Repo, error) {
	return newRepo(r, memory.NewStorage(), nil)
}
