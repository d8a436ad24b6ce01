// `ecocompute keys add|revoke NAME --file FILE`: the write keys `serve --write-keys FILE` checks uploads
// against. add prints the new key once (only its hash is kept); revoke removes it, and a running server
// stops accepting it at its next upload.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "server/write_keys.hpp"

namespace ecocompute::cli {

Command make_keys_command(CLI::App& root) {
  struct Options {
    std::string action;
    std::string name;
    std::string file;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("keys", "Make or revoke a write key for `serve --write-keys FILE` (uploads need one; "
                                              "reads never do)");
  app->add_option("action", o->action, "add (prints the new key once) or revoke")
      ->required()
      ->check(CLI::IsMember({"add", "revoke"}));
  app->add_option("name", o->name, "Who holds the key (1–64 of A-Z a-z 0-9 . _ @ -)")->required();
  app->add_option("--file", o->file, "The key file (created if missing; holds only hashes)")->required();
  return {app, [o] {
            if (o->action == "revoke") {
              if (auto revoked = server::revoke_write_key(o->file, o->name); !revoked) return report_error(revoked.error());
              std::fprintf(stderr, "revoked the key of %s in %s\n", o->name.c_str(), o->file.c_str());
              return static_cast<int>(exit_ok);
            }
            auto key = server::add_write_key(o->file, o->name);
            if (!key) return report_error(key.error());
            std::printf("%s\n", key->c_str());
            std::fprintf(stderr, "the key of %s is above; it is shown only now (%s keeps its hash). Uploads send it as "
                                 "Authorization: Bearer <key>\n",
                         o->name.c_str(), o->file.c_str());
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
